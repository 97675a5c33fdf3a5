// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "rank_stepper.hpp"

#include "step_job_impl.hpp"

#include <canzona/backend/host_values.hpp>
#include <canzona/core/synthetic_values.hpp>
#include <canzona/exec/executor.hpp>

#include <algorithm>
#include <span>
#include <vector>

namespace canzona::bench::step {

struct RankStepper::Impl {
  StepJob::Impl& job;
  std::unique_ptr<exec::Executor> executor;
  /// Per layout buffer, the gradients as the executor's gradient buffer holds them (its type),
  /// on the backend: load_gradients restores them with one device-side copy (while they were
  /// re-uploaded from host memory, a GPU node spent 0.37 s of host time per 26 ms step of a
  /// full Qwen3-0.6B).
  std::vector<backend::Buffer> grads;
  int refresh_interval = 1;
  std::uint64_t last_operations = 0;
};

RankStepper::RankStepper(StepJob& job, const CasePlan& plan, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(Impl{job.impl(), nullptr, {}, plan.facts().refresh_interval})) {
  StepJob::Impl& j = job.impl();
  const plan::StepPlan& p = step_plan(plan);
  comm::ProcessGroups& groups = j.groups_for(p.tp());
  impl_->executor =
      std::make_unique<exec::Executor>(p, j.world(), *groups.dp, *groups.tp, *j.backend);
  const exec::Executor& ex = *impl_->executor;
  const auto rank = static_cast<std::uint64_t>(j.host->rank());
  constexpr float kStddev = 0.02f;
  for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
    // Normal(0, 0.02) values inside every entry, a function of (seed, rank, buffer, element):
    // filled on every core. Padding stays zero, as the executor requires.
    std::vector<float> params(static_cast<std::size_t>(ex.buffer_elements(b)), 0.0f);
    std::vector<float> grads(params.size(), 0.0f);
    const std::uint64_t param_key = synthetic_key(seed, rank, b, 0);
    const std::uint64_t grad_key = synthetic_key(seed, rank, b, 1);
    for (const layout::BufferEntry& e : p.layout.buffers[b].entries) {
      const auto first = static_cast<std::size_t>(e.start);
      const auto count = static_cast<std::size_t>(e.end - e.start);
      fill_synthetic_normal(std::span(params).subspan(first, count), param_key, kStddev, first);
      fill_synthetic_normal(std::span(grads).subspan(first, count), grad_key, kStddev, first);
    }
    backend::upload_values(*j.backend, ex.params(b), ex.param_type(), params);
    const std::vector<std::uint8_t> typed = backend::host_elements(grads, ex.grad_type());
    backend::Buffer kept = j.backend->allocate(typed.size());
    j.backend->upload(kept.data(), typed.data(), typed.size());
    impl_->grads.push_back(std::move(kept));
  }
  j.backend->synchronize();
}

RankStepper::~RankStepper() = default;

void RankStepper::load_gradients() {
  for (std::size_t b = 0; b < impl_->grads.size(); ++b) {
    impl_->job.backend->copy(impl_->executor->grads(b), impl_->grads[b].data(),
                             impl_->grads[b].bytes());
  }
  impl_->job.backend->synchronize();
}

void RankStepper::step() {
  const backend::OpCounts before = impl_->job.backend->op_counts();
  impl_->executor->step();
  impl_->last_operations = (impl_->job.backend->op_counts() - before).operations;
}

std::uint64_t RankStepper::last_step_operations() const { return impl_->last_operations; }

StepRecord RankStepper::last_step() {
  const exec::StepTimes times = impl_->executor->last_step_times();
  StepRecord record;
  record.total = times.total;
  std::copy(times.seconds.begin(), times.seconds.end(), record.slots.begin());
  return record;
}

double RankStepper::allocated_bytes() const {
  return static_cast<double>(impl_->executor->allocated_bytes());
}

bool RankStepper::next_step_refreshes() const {
  return impl_->refresh_interval > 1 && impl_->executor->steps() % impl_->refresh_interval == 0;
}

}  // namespace canzona::bench::step
