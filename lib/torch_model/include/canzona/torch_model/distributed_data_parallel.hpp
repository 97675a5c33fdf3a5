// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron's DistributedDataParallel for the libtorch model over the executor's ZeRO-1 buffers:
// parameters are views into the model parameter buffers, gradients accumulate into the gradient
// buffers, and each bucket's gradient sync starts as soon as backward has produced the last
// gradient in it.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/exec/executor.hpp>

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "canzona/torch_model/qwen3.hpp"

namespace torch::autograd {
struct Node;
}  // namespace torch::autograd

namespace canzona::torch_model {

/// One bucket reported complete during a synced backward.
struct BucketReport {
  std::size_t buffer = 0;
  std::size_t bucket = 0;
  /// Parameters whose gradient backward had not produced yet when the bucket completed: > 0
  /// means its collective started while backward was still computing.
  std::size_t gradients_pending = 0;
};

/// Binds a model to the ZeRO-1 buffers of an executor built for it (same model, TP-local
/// shapes, plan.tp() = the model's TP group size):
///  - parameter i becomes a view of executor.params(b) at its layout entry, so the forward pass
///    reads what the optimizer and the parameter all-gather wrote (the model's current values
///    are copied there first, and the executor rebuilds its main parameters from them);
///  - a post-hook on every parameter's gradient accumulator adds the gradient into its entry of
///    executor.grads(b), in the gradient type (Megatron's main_grad), and drops param.grad;
///  - while syncing is on (the last micro-batch of an iteration), every bucket whose entries all
///    received their gradient is reported to Executor::grad_bucket_ready, which issues its
///    collective in the plan's order. A bucket some gradient never reaches (a MoE expert no token
///    was routed to on this rank) is issued by the executor's step.
/// The model must be built on the executor's memory: a CPU model for the cpu backend, a CUDA
/// model on the backend's device for the cuda backend; its dtype is the plan's parameter type.
/// On CUDA, a bucket is reported after torch's current stream has finished writing it (a host
/// wait), and after_step() synchronises the backend before the next forward reads the
/// parameters.
class DistributedDataParallel {
 public:
  /// ConfigError when the plan's layout does not describe the model (names, TP-local shapes,
  /// tp), or the model's device or dtype does not match the executor's buffers. `model`,
  /// `executor` and `backend` (the executor's) must outlive this object, which removes its hooks
  /// when destroyed. The model keeps its parameters in the executor's buffers afterwards.
  DistributedDataParallel(Qwen3Model& model, exec::Executor& executor, backend::Backend& backend);
  ~DistributedDataParallel();
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  /// Zeroes every gradient buffer and re-arms the bucket counters: before the first micro-batch.
  void zero_grads();
  /// Whether the next backward reports buckets (on for the last micro-batch only); turning it
  /// on re-arms the bucket counters and clears reports().
  void set_sync(bool enabled);
  /// Makes what the executor wrote (step() or sync_grads()) visible to torch work enqueued
  /// next: synchronises the backend on CUDA, nothing on CPU.
  void after_step();

  /// The buckets reported during the last synced backward, in report order.
  const std::vector<BucketReport>& reports() const noexcept { return reports_; }
  /// Buckets of every buffer.
  std::size_t buckets() const noexcept { return buckets_; }

 private:
  class Hook;
  struct Slot {
    std::size_t param = 0;
    std::size_t buffer = 0;
    std::size_t bucket = 0;
    at::Tensor grad;  ///< its entry of the gradient buffer, in the parameter's shape
  };

  void on_gradient(std::size_t slot);

  Qwen3Model& model_;
  exec::Executor& executor_;
  backend::Backend& backend_;
  bool sync_ = false;
  std::size_t buckets_ = 0;
  std::size_t gradients_pending_ = 0;
  std::vector<at::Tensor> grad_buffers_;
  std::vector<Slot> slots_;
  std::vector<std::vector<int>> pending_;  ///< [buffer][bucket]: entries without a gradient
  std::vector<BucketReport> reports_;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;
  std::vector<std::uintptr_t> hook_keys_;
};

}  // namespace canzona::torch_model
