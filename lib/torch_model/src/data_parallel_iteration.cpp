// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The iteration loop. Host clocks: on CPU ranks every phase is synchronous; on CUDA the loss
// read-back and DistributedDataParallel::after_step() synchronise where the phases meet.
#include "canzona/torch_model/data_parallel_iteration.hpp"

#include <canzona/core/error.hpp>

#include <chrono>

namespace canzona::torch_model {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

DataParallelIteration::DataParallelIteration(Qwen3Model& model, exec::Executor& executor,
                                             backend::Backend& backend)
    : model_(model), executor_(executor), ddp_(model, executor, backend) {}

double DataParallelIteration::run(const std::vector<MicroBatch>& micro_batches, StepKind kind) {
  if (micro_batches.empty()) {
    throw ConfigError("an iteration needs at least one micro-batch");
  }
  times_ = {};
  const Clock::time_point begin = Clock::now();
  ddp_.zero_grads();
  const double scale = 1.0 / static_cast<double>(micro_batches.size());
  double loss = 0;
  for (std::size_t i = 0; i < micro_batches.size(); ++i) {
    ddp_.set_sync(i + 1 == micro_batches.size());
    Clock::time_point start = Clock::now();
    const ForwardOutput out = model_.forward(micro_batches[i].tokens, micro_batches[i].labels);
    loss += out.loss.item<double>() * scale;
    times_.forward += seconds_since(start);
    start = Clock::now();
    (out.loss * scale).backward();
    times_.backward += seconds_since(start);
  }
  const Clock::time_point start = Clock::now();
  if (kind == StepKind::kOptimizer) {
    executor_.step();
  } else {
    executor_.sync_grads();
  }
  ddp_.after_step();
  times_.step = seconds_since(start);
  times_.total = seconds_since(begin);
  times_.step_phases = executor_.last_step_times();
  return loss;
}

}  // namespace canzona::torch_model
