// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Executor: start-up agreement, allocation of everything a step needs, and the step itself as
// a sequence of the parts in this folder.
#include "canzona/exec/executor.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/matrix_optimizer.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>
#include <utility>

#include "adamw_update.hpp"
#include "dp_sync.hpp"
#include "main_params.hpp"
#include "replicated_matrices.hpp"
#include "startup.hpp"
#include "step_context.hpp"
#include "tp_pipeline.hpp"
#include "usage_counters.hpp"

namespace canzona::exec {

Executor::Executor(plan::StepPlan plan, comm::Communicator& world, comm::Communicator& dp,
                   comm::Communicator& tp, backend::Backend& backend, ExecutorOptions options)
    : plan_(std::move(plan)),
      backend_(backend),
      dp_rank_(dp.rank()),
      tp_rank_(tp.rank()),
      timer_(options.timer ? std::move(options.timer) : make_default_timer(backend, dp, tp)),
      ordering_(options.ordering ? std::move(options.ordering)
                                 : make_default_ordering(backend, dp, tp)) {
  detail::agree_on_start(plan_, world, dp, tp, backend);

  usage_ = std::make_unique<detail::UsageCounters>(plan_);
  const comm::DataType param_type = plan_.options.precision.params;
  const comm::DataType grad_type = plan_.options.precision.grad_reduce;
  std::vector<void*> param_ptrs;
  std::vector<void*> grad_ptrs;
  for (const layout::Buffer& buffer : plan_.layout.buffers) {
    const auto elements = static_cast<std::size_t>(buffer.total);
    params_.push_back(backend.allocate(elements * comm::size_of(param_type)));
    grads_.push_back(backend.allocate(elements * comm::size_of(grad_type)));
    param_ptrs.push_back(params_.back().data());
    grad_ptrs.push_back(grads_.back().data());
  }
  context_ = std::make_unique<detail::StepContext>(detail::StepContext{
      .plan = plan_,
      .dp_rank = dp_rank_,
      .tp_rank = tp_rank_,
      .backend = backend,
      .dp = dp,
      .tp = tp,
      .ordering = *ordering_,
      .timer = *timer_,
      .usage = *usage_,
      .params = std::move(param_ptrs),
      .grads = std::move(grad_ptrs),
      .param_type = param_type,
      .grad_type = grad_type,
      .main = nullptr,
      .step = 0,
      .allocated_bytes = 0,
      .states = {},
  });
  main_ = std::make_unique<detail::MainParams>(*context_);
  context_->main = main_.get();

  matrix_optimizer_ = optim::make_matrix_optimizer(plan_.options.optimizer, backend);
  optim::OptimizerSpec adamw_spec;
  adamw_spec.kind = optim::OptimizerKind::kAdamW;
  adamw_spec.adamw = plan_.options.optimizer.adamw;
  adamw_optimizer_ = optim::make_matrix_optimizer(adamw_spec, backend);

  dp_sync_ = std::make_unique<detail::DpSync>(*context_);
  adamw_ = std::make_unique<detail::AdamWUpdate>(*context_, *main_, *adamw_optimizer_);
  pipeline_ = std::make_unique<detail::TpPipeline>(*context_, *matrix_optimizer_);
  replicated_ = std::make_unique<detail::ReplicatedMatrices>(*context_, *matrix_optimizer_);

  // Workspaces sized for the largest batch of each shape, so no step ever grows them.
  std::vector<const detail::TrackedBatch*> batches = pipeline_->batches();
  for (const detail::TrackedBatch* batch : replicated_->batches()) batches.push_back(batch);
  detail::reserve_for(*matrix_optimizer_, batches);
  const detail::TrackedBatch* adamw_batch = &adamw_->batch();
  detail::reserve_for(*adamw_optimizer_, std::span(&adamw_batch, 1));

  for (const backend::Buffer& b : params_) allocated_bytes_ += b.bytes();
  for (const backend::Buffer& b : grads_) allocated_bytes_ += b.bytes();
  allocated_bytes_ += context_->allocated_bytes + matrix_optimizer_->reserved_workspace_bytes() +
                      adamw_optimizer_->reserved_workspace_bytes();
  backend.synchronize();
}

Executor::~Executor() {
  // With the stream ordering, collectives may still be reading or writing our buffers and
  // staging; the backend stream waited for every one of them, so draining it makes freeing
  // safe (and the retired requests complete, so dropping them does not block).
  try {
    backend_.synchronize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "canzona: warning: executor teardown: backend synchronize failed: %s\n",
                 e.what());
  }
}

void Executor::step() {
  timer_->begin_step();
  usage_->begin_step();
  context_->step = steps_ + 1;
  if (main_stale_) {
    const ScopedSlot phase(*timer_, TimerSlot::kUpdate);
    main_->load();
    main_stale_ = false;
  }
  dp_sync_->grad_sync();
  {
    const ScopedSlot phase(*timer_, TimerSlot::kUpdate);
    main_->import_grads();
  }
  // Pipelined: G0 travels while the element-wise update and the local matrices compute.
  pipeline_->start();
  adamw_->step();
  replicated_->step_local();
  pipeline_->run();
  // TP-SC after the micro-groups: the TP communicator sees the plan's order.
  replicated_->step_gathered();
  pipeline_->finish();
  {
    const ScopedSlot phase(*timer_, TimerSlot::kUpdate);
    main_->publish();
  }
  dp_sync_->param_sync();
  timer_->end_step();
  ++steps_;
}

void Executor::grad_bucket_ready(std::size_t buffer, std::size_t bucket) {
  const std::vector<layout::Buffer>& buffers = plan_.layout.buffers;
  if (buffer >= buffers.size() || bucket >= buffers[buffer].buckets.size()) {
    throw ConfigError(fmt::format(
        "grad_bucket_ready: buffer {} bucket {} does not exist (the plan has {} buffers{})", buffer,
        bucket, buffers.size(),
        buffer < buffers.size() ? fmt::format(", '{}' has {} buckets", buffers[buffer].name,
                                              buffers[buffer].buckets.size())
                                : std::string()));
  }
  dp_sync_->grad_bucket_ready(buffer, bucket);
}

void Executor::sync_grads() {
  timer_->begin_step();
  dp_sync_->grad_sync();
  timer_->end_step();
}

std::int64_t Executor::buffer_elements(std::size_t buffer) const {
  return plan_.layout.buffers.at(buffer).total;
}

void* Executor::params(std::size_t buffer) const { return params_.at(buffer).data(); }

void* Executor::grads(std::size_t buffer) const { return grads_.at(buffer).data(); }

backend::ElementType Executor::param_type() const noexcept {
  return context_->param_type == comm::DataType::kBFloat16 ? backend::ElementType::kBFloat16
                                                           : backend::ElementType::kFloat32;
}

backend::ElementType Executor::grad_type() const noexcept {
  return context_->grad_type == comm::DataType::kBFloat16 ? backend::ElementType::kBFloat16
                                                          : backend::ElementType::kFloat32;
}

std::vector<MainRange> Executor::main_params() const {
  std::vector<MainRange> out;
  for (const detail::OwnedRange& r : main_->ranges()) {
    out.push_back(MainRange{r.buffer, r.begin, r.end, r.param});
  }
  return out;
}

const optim::MatrixState* Executor::state(std::size_t matrix, std::size_t fragment) const {
  const auto& states = context_->states;
  if (matrix >= states.size() || fragment >= states[matrix].size()) return nullptr;
  return states[matrix][fragment];
}

StepTimes Executor::last_step_times() { return timer_->last_step(); }

const std::vector<OptimizerUsage>& Executor::usage() const { return usage_->entries(); }

}  // namespace canzona::exec
