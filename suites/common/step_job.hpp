// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The communicators and backend a suite's measured rows run on, for the whole run.
#pragma once

#include <canzona/comm/communicator.hpp>

#include <memory>
#include <string>

namespace canzona::backend {
class Backend;
}
namespace canzona::comm {
struct ProcessGroups;
}

namespace canzona::bench::step {

/// The communicators and backend that measured rows run on, for the whole run: MPI ranks with
/// the cpu backend, or one NCCL rank per GPU (bootstrapped over MPI) with the cuda backend.
class StepJob {
 public:
  /// The job's state, created by the first call (collective over every rank) and released when
  /// the RankSession ends. ConfigError when `backend` cannot run here.
  static StepJob& get(const std::string& backend);
  ~StepJob();
  /// Host-memory communicator over every rank: barriers, gathering per-rank records.
  comm::Communicator& host_world();

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit StepJob(const std::string& backend);
  std::unique_ptr<Impl> impl_;
};

/// For a suite that runs more than the optimizer step around the same job (the end-to-end
/// iteration): the job's communicator over every rank (NCCL on cuda, else MPI), its (dp, tp)
/// groups, created once per tp, and its backend.
comm::Communicator& job_world(StepJob& job);
comm::ProcessGroups& job_groups(StepJob& job, int tp);
backend::Backend& job_backend(StepJob& job);

/// Memory of one device of the backend: the first GPU's for cuda, 0 (no limit checked) for cpu.
double device_memory_bytes(const std::string& backend);

}  // namespace canzona::bench::step
