// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What every part of a step shares (internal): the plan, this rank's place in it, the backend,
// the two communicators, the ordering and timer, the TP-local buffers and the usage record.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/comm/request.hpp>
#include <canzona/exec/comm_ordering.hpp>
#include <canzona/exec/step_timer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace canzona::exec::detail {

class UsageCounters;

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
  std::vector<float*> params;  ///< per layout buffer, backend memory
  std::vector<float*> grads;   ///< per layout buffer, backend memory
  std::size_t allocated_bytes = 0;

  /// `count` zeroed floats of backend memory, counted in allocated_bytes. Construction only.
  backend::Buffer allocate_floats(std::int64_t count);

  /// Blocks (or orders the backend) until `request` completes, timed as idle.
  void await(comm::Request& request);

  /// The TP-local parameter / gradient of matrix `m` (its entry in its buffer).
  float* matrix_param(const plan::MatrixPlan& m) const;
  float* matrix_grad(const plan::MatrixPlan& m) const;
};

}  // namespace canzona::exec::detail
