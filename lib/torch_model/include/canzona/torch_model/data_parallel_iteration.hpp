// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// One training iteration of the libtorch model under ZeRO-1 data parallelism and Megatron TP:
// forward and backward over the micro-batches with the bucketed gradient sync overlapping the
// last backward, then the optimizer step over the ZeRO-1 buffers.
#pragma once

#include <canzona/comm/communicator.hpp>
#include <canzona/plan/step_plan.hpp>

#include <ATen/ATen.h>

#include <vector>

#include "canzona/torch_model/bucketed_grad_sync.hpp"
#include "canzona/torch_model/optimizer_step.hpp"
#include "canzona/torch_model/qwen3.hpp"

namespace canzona::torch_model {

/// One micro-batch: tokens and next-token labels, [b, s] int64 on the model's device, the same
/// on every TP rank of a DP rank and different across DP ranks.
struct MicroBatch {
  at::Tensor tokens;
  at::Tensor labels;
};

/// Host wall-clock seconds of the phases of the last iteration (they do not overlap; the
/// gradient sync that overlaps backward is inside `backward`, only its tail is `grad_sync`).
struct IterationTimes {
  double forward = 0;
  double backward = 0;
  double grad_sync = 0;  ///< finish(): what backward did not hide, and the 1/dp scaling
  double optimizer = 0;  ///< OptimizerStep::step(), parameter sync included
  double total = 0;
};

/// Runs iterations of `model` bound to `step`'s buffers by a BucketedGradSync built here.
/// `model`, `dp` and `step` must outlive it; collective over the job (construction splits `dp`,
/// every iteration runs TP and DP collectives).
class DataParallelIteration {
 public:
  DataParallelIteration(const plan::StepPlan& plan, Qwen3Model& model, comm::Communicator& dp,
                        OptimizerStep& step);

  /// Zeroes the gradient buffers; forward and backward of every micro-batch with the loss
  /// scaled by 1 / micro_batches.size(), so the buffers hold the mean gradient; the bucketed
  /// gradient sync during the last backward (unless the optimizer step syncs gradients
  /// itself); then the optimizer step. Returns this DP rank's mean loss over its micro-batches
  /// (before the step). ConfigError for an empty list.
  double run(const std::vector<MicroBatch>& micro_batches);

  const IterationTimes& last_times() const noexcept { return times_; }
  const BucketedGradSync& grad_sync() const noexcept { return sync_; }

 private:
  Qwen3Model& model_;
  OptimizerStep& step_;
  BucketedGradSync sync_;
  IterationTimes times_;
};

}  // namespace canzona::torch_model
