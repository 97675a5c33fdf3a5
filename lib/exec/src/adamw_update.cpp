// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "adamw_update.hpp"

#include <algorithm>

namespace canzona::exec::detail {

AdamWUpdate::AdamWUpdate(StepContext& ctx, const MainParams& main, optim::MatrixOptimizer& adamw)
    : ctx_(ctx), adamw_(adamw) {
  for (const plan::BufferPlan& bp : ctx.plan.buffers) {
    if (bp.matrix) continue;
    for (const OwnedRange& range : main.ranges(bp.buffer)) add_range(range);
  }
}

void AdamWUpdate::add_range(const OwnedRange& range) {
  const layout::Buffer& buffer = ctx_.plan.layout.buffers[range.buffer];
  // Padding inside the range is stepped too: zero gradient, zero moments and zero parameter
  // give a zero update, so it stays zero.
  states_.push_back(adamw_.make_state(1, range.end - range.begin));
  ctx_.allocated_bytes += states_.back()->bytes();
  optim::StepTask task;
  task.state = states_.back().get();
  task.param = range.param;
  task.grad = range.grad;
  task.shape = optim::Shape{1, range.end - range.begin};
  task.name = buffer.name;
  batch_.tasks.push_back(task);
  for (const layout::BufferEntry& e : buffer.entries) {
    const std::int64_t overlap = std::min(range.end, e.end) - std::max(range.begin, e.start);
    if (overlap > 0) {
      batch_.hits.push_back(UsageHit{ctx_.usage.param_entry(e.param_index), overlap});
    }
  }
}

void AdamWUpdate::step() {
  if (batch_.tasks.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kUpdate);
  run_batch(adamw_, batch_, ctx_.usage);
}

}  // namespace canzona::exec::detail
