// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_context.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include "main_params.hpp"

namespace canzona::exec::detail {

backend::ElementType element_type(comm::DataType type) {
  switch (type) {
    case comm::DataType::kFloat32:
      return backend::ElementType::kFloat32;
    case comm::DataType::kBFloat16:
      return backend::ElementType::kBFloat16;
    default:
      break;
  }
  throw ConfigError(fmt::format("executor: buffers of {} are not supported (bf16 or fp32)",
                                comm::to_string(type)));
}

backend::Buffer StepContext::allocate(std::int64_t count, backend::ElementType type) {
  const std::size_t bytes = static_cast<std::size_t>(count) * backend::element_size(type);
  allocated_bytes += bytes;
  return backend.allocate(bytes);
}

void StepContext::record_state(std::size_t matrix, std::size_t fragment,
                               const optim::MatrixState* state) {
  if (states.size() != plan.matrices.size()) {
    states.resize(plan.matrices.size());
    for (std::size_t i = 0; i < states.size(); ++i) {
      states[i].assign(plan.matrices[i].fragments.size(), nullptr);
    }
  }
  states.at(matrix).at(fragment) = state;
}

void StepContext::await(comm::Request& request) {
  if (!request.pending()) return;
  const ScopedSlot idle(timer, TimerSlot::kIdle);
  ordering.backend_after(request);
}

float* StepContext::matrix_param(const plan::MatrixPlan& m) const {
  return main->param(m.buffer, plan.layout.buffers[m.buffer].entries[m.entry].start);
}

float* StepContext::matrix_grad(const plan::MatrixPlan& m) const {
  return main->grad(m.buffer, plan.layout.buffers[m.buffer].entries[m.entry].start);
}

}  // namespace canzona::exec::detail
