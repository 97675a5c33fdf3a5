// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The iteration loop. Host clocks: on CPU ranks every phase is synchronous.
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

DataParallelIteration::DataParallelIteration(const plan::StepPlan& plan, Qwen3Model& model,
                                             comm::Communicator& dp, OptimizerStep& step)
    : model_(model), step_(step), sync_(plan, model, dp, step) {}

double DataParallelIteration::run(const std::vector<MicroBatch>& micro_batches) {
  if (micro_batches.empty()) {
    throw ConfigError("an iteration needs at least one micro-batch");
  }
  times_ = {};
  const Clock::time_point begin = Clock::now();
  sync_.zero_grads();
  const double scale = 1.0 / static_cast<double>(micro_batches.size());
  double loss = 0;
  for (std::size_t i = 0; i < micro_batches.size(); ++i) {
    sync_.set_sync(!step_.syncs_gradients() && i + 1 == micro_batches.size());
    Clock::time_point start = Clock::now();
    const ForwardOutput out = model_.forward(micro_batches[i].tokens, micro_batches[i].labels);
    times_.forward += seconds_since(start);
    start = Clock::now();
    (out.loss * scale).backward();
    times_.backward += seconds_since(start);
    loss += out.loss.item<double>() * scale;
  }
  Clock::time_point start = Clock::now();
  sync_.finish();
  times_.grad_sync = seconds_since(start);
  start = Clock::now();
  step_.step();
  times_.optimizer = seconds_since(start);
  times_.total = seconds_since(begin);
  return loss;
}

}  // namespace canzona::torch_model
