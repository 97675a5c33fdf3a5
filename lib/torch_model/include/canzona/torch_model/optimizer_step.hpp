// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one seam between the end-to-end iteration and the optimizer: which flat ZeRO-1 buffers
// the model's parameters and gradients live in (and in which dtypes), and the step over them.
// Megatron's mixed precision (bf16 model parameters, fp32 gradients and main parameters in the
// executor) changes what sits behind this interface, not the iteration.
#pragma once

#include <canzona/comm/communicator.hpp>
#include <canzona/plan/step_plan.hpp>

#include <ATen/ATen.h>

#include <cstddef>
#include <memory>

namespace canzona::torch_model {

/// The ZeRO-1 buffers of one rank and the optimizer step over them. Buffer b is layout buffer b
/// of the plan (buffer.total elements, TP-local, parameters at their entries, padding zero).
class OptimizerStep {
 public:
  virtual ~OptimizerStep() = default;
  /// Flat parameter buffer b; the model's parameters become views into it, so its dtype is the
  /// model's compute dtype.
  virtual at::Tensor params(std::size_t buffer) = 0;
  /// Flat gradient buffer b; gradients accumulate into it (in its own dtype) during backward.
  virtual at::Tensor grads(std::size_t buffer) = 0;
  /// True when step() reduces the gradients over DP itself; then the iteration starts no grad
  /// sync during backward and leaves the gradient buffers summed over micro-batches only.
  /// False: the iteration reduces them bucket by bucket during backward (the plan's collectives,
  /// averaged over DP) and step() finds them synced.
  virtual bool syncs_gradients() const = 0;
  /// One optimizer step, after which every DP rank's parameter buffers hold the updated
  /// parameters (the plan's parameter sync included). Collective over the job.
  virtual void step() = 0;
};

/// The executor (lib/exec) behind the seam: its fp32 buffers on the cpu backend (host memory,
/// MPI communicators), and Executor::step(), which today reduces the gradients itself
/// (syncs_gradients() is true). Collective over `world` (the executor's start-up agreement).
/// `world`, `dp` and `tp` must outlive it; `dp` and `tp` come from comm::split_dp_tp.
std::unique_ptr<OptimizerStep> make_executor_step(const plan::StepPlan& plan,
                                                  comm::Communicator& world, comm::Communicator& dp,
                                                  comm::Communicator& tp);

/// Buffers of `dtype` on `device` that no optimizer steps: step() does nothing and
/// syncs_gradients() is false. For the iteration with the optimizer replaced by a no-op (the
/// baseline of optimizer_exposed_ms) and for checking the overlapped gradient sync alone.
std::unique_ptr<OptimizerStep> make_no_optimizer_step(const plan::StepPlan& plan,
                                                      at::ScalarType dtype, at::Device device);

}  // namespace canzona::torch_model
