// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_job.hpp"

#include "rank_session.hpp"
#include "step_job_impl.hpp"

#include <canzona/comm/nccl_factory.hpp>
#include <canzona/config.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>

namespace canzona::bench::step {

namespace {
std::unique_ptr<StepJob> g_job;
}  // namespace

StepJob& StepJob::get(const std::string& backend) {
  if (!g_job) {
    g_job.reset(new StepJob(backend));
    on_job_end([] { g_job.reset(); });
  }
  CANZONA_CHECK(g_job->impl_->backend_name == backend, "one backend per run");
  return *g_job;
}

StepJob::StepJob(const std::string& backend) : impl_(std::make_unique<Impl>()) {
  Impl& j = *impl_;
  j.backend_name = backend;
  j.host = comm::MpiCommunicator::world();
  if (backend == "cuda") {
#if CANZONA_WITH_NCCL
    auto nccl = comm::make_nccl_communicator(*j.host, "world", -1);
    j.backend = backend::make_backend("cuda", nccl->device());
    j.device = std::move(nccl);
#else
    throw ConfigError("the cuda backend runs ranks over NCCL; this build has no NCCL");
#endif
  } else {
    j.backend = backend::make_backend(backend);
  }
}

namespace {

// NCCL communicators are torn down collectively (finalize); destroying one unfinalised aborts it.
void finalize(std::unique_ptr<comm::Communicator>& c) {
  if (c) c->finalize();
  c.reset();
}

}  // namespace

StepJob::~StepJob() {
  // Every rank ends the job here, together: communicators go before MPI is finalised.
  for (auto& [tp, groups] : impl_->groups) {
    finalize(groups.tp);
    finalize(groups.dp);
  }
  finalize(impl_->device);
}

comm::Communicator& StepJob::host_world() { return *impl_->host; }

comm::Communicator& job_world(StepJob& job) { return job.impl().world(); }
comm::ProcessGroups& job_groups(StepJob& job, int tp) { return job.impl().groups_for(tp); }
backend::Backend& job_backend(StepJob& job) { return *job.impl().backend; }

double device_memory_bytes(const std::string& backend) {
  if (backend == "cuda") return static_cast<double>(cuda_total_memory_bytes(0));
  return 0;
}

}  // namespace canzona::bench::step
