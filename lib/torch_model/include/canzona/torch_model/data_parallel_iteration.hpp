// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// One training iteration of the libtorch model under ZeRO-1 data parallelism and Megatron TP:
// forward and backward over the micro-batches with the bucketed gradient sync overlapping the
// last backward, then the executor's optimizer step (or only its gradient sync).
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/exec/step_timer.hpp>

#include <ATen/ATen.h>

#include <vector>

#include "canzona/torch_model/distributed_data_parallel.hpp"
#include "canzona/torch_model/qwen3.hpp"

namespace canzona::torch_model {

/// One micro-batch: tokens and next-token labels, [b, s] int64 on the model's device, the same
/// on every TP rank of a DP rank and different across DP ranks.
struct MicroBatch {
  at::Tensor tokens;
  at::Tensor labels;
};

/// What follows backward.
enum class StepKind {
  kOptimizer,     ///< Executor::step(): gradient sync, optimizer, parameter sync
  kGradSyncOnly,  ///< Executor::sync_grads(): the optimizer replaced by a no-op
};

/// Host wall-clock seconds of the last iteration's phases, which follow each other (the
/// gradient sync that overlaps backward is inside `backward`; the step's own grad_sync phase is
/// only what backward did not hide), and the executor's phase times of its step.
struct IterationTimes {
  double forward = 0;
  double backward = 0;
  double step = 0;
  double total = 0;
  exec::StepTimes step_phases;
};

/// Runs iterations of `model` over `executor`'s buffers through a DistributedDataParallel built
/// here (see there for what `model`, `executor` and `backend` must be; they must outlive it).
/// Collective over the job: every iteration runs TP and DP collectives.
class DataParallelIteration {
 public:
  DataParallelIteration(Qwen3Model& model, exec::Executor& executor, backend::Backend& backend);

  /// Zeroes the gradient buffers; forward and backward of every micro-batch with the loss scaled
  /// by 1 / micro_batches.size(), so the buffers hold this rank's mean gradient; buckets
  /// reported during the last backward; then the step. Returns this DP rank's mean loss over
  /// its micro-batches (before the step). ConfigError for an empty list.
  double run(const std::vector<MicroBatch>& micro_batches, StepKind kind = StepKind::kOptimizer);

  const IterationTimes& last_times() const noexcept { return times_; }
  const DistributedDataParallel& ddp() const noexcept { return ddp_; }

 private:
  Qwen3Model& model_;
  exec::Executor& executor_;
  DistributedDataParallel ddp_;
  IterationTimes times_;
};

}  // namespace canzona::torch_model
