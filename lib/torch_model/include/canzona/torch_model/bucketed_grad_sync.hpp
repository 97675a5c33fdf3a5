// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron's DistributedDataParallel for the libtorch model: parameters are views into the
// flat ZeRO-1 parameter buffers, gradients accumulate into the flat gradient buffers, and each
// bucket's gradient sync starts as soon as backward has produced the last gradient in it.
#pragma once

#include <canzona/comm/communicator.hpp>
#include <canzona/comm/request.hpp>
#include <canzona/plan/step_plan.hpp>

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "canzona/torch_model/optimizer_step.hpp"
#include "canzona/torch_model/qwen3.hpp"

namespace torch::autograd {
struct Node;
}  // namespace torch::autograd

namespace canzona::torch_model {

/// Binds a model to the ZeRO-1 buffers of `step` as laid out by `plan.layout` and reduces its
/// gradients over DP the way the plan says, overlapping backward:
///  - parameter i becomes a view of step.params(b) at its entry (layout buffer b); the model's
///    current values are copied there first;
///  - a post-hook on every parameter's gradient accumulator adds the gradient into its entry of
///    step.grads(b) (in that buffer's dtype; Megatron's main_grad) and drops param.grad;
///  - when syncing is on (set_sync(true), the last micro-batch) and every entry of a bucket has
///    received its gradient, the bucket's collective starts asynchronously: the plan's uneven
///    reduce-scatter on the bucket's cuts, or an all-reduce of the bucket (sum). Buckets of a
///    buffer start in bucket order (the reverse-order packing makes that backward order), each
///    buffer on its own duplicate of the DP communicator, as Megatron's per-buffer groups: the
///    buckets of a MoE expert buffer whose experts got no tokens on one rank complete only in
///    finish(), and must not reorder the other buffers' collectives.
///  - finish() starts what backward left, waits for everything and multiplies what this rank
///    keeps (its slice after a reduce-scatter, the bucket after an all-reduce) by 1/dp.
/// With MPI the collectives progress whenever a hook polls them (and in finish()).
///
/// The DP trace of one synced backward + finish() equals the plan's grad-sync collectives
/// (plan::rank_collectives, Phase::kGradSync), buffer by buffer, in order.
class BucketedGradSync {
 public:
  /// Collective over `dp` (one split per layout buffer). ConfigError when the layout's
  /// parameters are not the model's (names, TP-local shapes, dp, tp) or a buffer's dtype or
  /// size does not fit. `model`, `dp` and `step` must outlive this object, which removes its
  /// hooks when destroyed.
  BucketedGradSync(const plan::StepPlan& plan, Qwen3Model& model, comm::Communicator& dp,
                   OptimizerStep& step);
  ~BucketedGradSync();
  BucketedGradSync(const BucketedGradSync&) = delete;
  BucketedGradSync& operator=(const BucketedGradSync&) = delete;

  /// Zeroes every gradient buffer and re-arms the bucket counters: call before the first
  /// micro-batch of an iteration.
  void zero_grads();
  /// Whether the next backward starts bucket collectives (on for the last micro-batch only).
  void set_sync(bool enabled) { sync_ = enabled; }
  /// Starts the buckets backward did not complete (in order), waits for all collectives and
  /// averages over DP. A no-op when syncing was off.
  void finish();

  /// Buckets whose collective started inside backward in the last synced pass, and all buckets.
  std::size_t started_in_backward() const noexcept { return started_in_backward_; }
  std::size_t buckets() const noexcept;
  /// The DP communicator of layout buffer `buffer` (its trace is that buffer's grad sync).
  comm::Communicator& communicator(std::size_t buffer) const { return *comms_.at(buffer); }

 private:
  class Hook;
  struct Slot {
    std::size_t param = 0;
    std::size_t buffer = 0;
    int bucket = 0;
    at::Tensor grad;  ///< its entry of the gradient buffer, in the parameter's shape
  };
  struct BufferState {
    std::vector<int> pending;             ///< per bucket, entries still without a gradient
    int next = 0;                         ///< next bucket to start
    std::vector<comm::Request> requests;  ///< per bucket
  };

  void on_gradient(std::size_t slot);
  void start_ready(std::size_t buffer, bool all);
  void start(std::size_t buffer, int bucket);
  void poll();

  plan::StepPlan plan_;
  Qwen3Model& model_;
  OptimizerStep& step_;
  int dp_rank_ = 0;
  int dp_size_ = 1;
  bool sync_ = false;
  bool in_finish_ = false;
  std::size_t started_in_backward_ = 0;
  std::vector<std::unique_ptr<comm::Communicator>> comms_;
  std::vector<Slot> slots_;
  std::vector<BufferState> state_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::uintptr_t> hook_keys_;
};

}  // namespace canzona::torch_model
