// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What every part of a step shares (internal): the plan, this rank's place in it, the backend,
// the two communicators, the ordering and timer, the TP-local model parameter and gradient
// buffers with their element types, the fp32 main parameters and the usage record.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/comm/request.hpp>
#include <canzona/exec/comm_ordering.hpp>
#include <canzona/exec/step_timer.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace canzona::exec::detail {

class UsageCounters;
class MainParams;

/// The backend and comm element types of a plan dtype (bf16 or fp32).
backend::ElementType element_type(comm::DataType type);

struct StepContext {
  const plan::StepPlan& plan;
  int dp_rank = 0;
  int tp_rank = 0;
  backend::Backend& backend;
  comm::Communicator& dp;
  comm::Communicator& tp;
  CommOrdering& ordering;
  StepTimer& timer;
  UsageCounters& usage;
  std::vector<void*> params;  ///< per layout buffer: model parameters, backend memory
  std::vector<void*> grads;   ///< per layout buffer: gradients, backend memory
  comm::DataType param_type = comm::DataType::kBFloat16;
  comm::DataType grad_type = comm::DataType::kFloat32;
  const MainParams* main = nullptr;  ///< set once the main parameters exist
  /// The step being taken, 1-based (the step number optimizer directions are applied as).
  int step = 0;
  std::size_t allocated_bytes = 0;
  /// [matrix][fragment]: the optimizer state this rank keeps for it, or null.
  std::vector<std::vector<const optim::MatrixState*>> states;

  /// Records the state of fragment `fragment` of plan matrix `matrix`. Construction only.
  void record_state(std::size_t matrix, std::size_t fragment, const optim::MatrixState* state);

  /// `count` zeroed elements of `type` in backend memory, counted in allocated_bytes.
  /// Construction only.
  backend::Buffer allocate(std::int64_t count, backend::ElementType type);
  backend::Buffer allocate_floats(std::int64_t count) {
    return allocate(count, backend::ElementType::kFloat32);
  }

  /// Blocks (or orders the backend) until `request` completes, timed as idle.
  void await(comm::Request& request);

  /// The fp32 main parameter / gradient of this rank's TP shard of matrix `m` (its entry in its
  /// buffer); the matrix must be one this rank's DP rank steps.
  float* matrix_param(const plan::MatrixPlan& m) const;
  float* matrix_grad(const plan::MatrixPlan& m) const;
};

}  // namespace canzona::exec::detail
