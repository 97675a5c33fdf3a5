// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_context.hpp"

namespace canzona::exec::detail {

backend::Buffer StepContext::allocate_floats(std::int64_t count) {
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(float);
  allocated_bytes += bytes;
  return backend.allocate(bytes);
}

void StepContext::await(comm::Request& request) {
  if (!request.pending()) return;
  const ScopedSlot idle(timer, TimerSlot::kIdle);
  ordering.backend_after(request);
}

float* StepContext::matrix_param(const plan::MatrixPlan& m) const {
  return params[m.buffer] + plan.layout.buffers[m.buffer].entries[m.entry].start;
}

float* StepContext::matrix_grad(const plan::MatrixPlan& m) const {
  return grads[m.buffer] + plan.layout.buffers[m.buffer].entries[m.entry].start;
}

}  // namespace canzona::exec::detail
