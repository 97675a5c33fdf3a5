// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "adamw_update.hpp"

#include <algorithm>

namespace canzona::exec::detail {

AdamWUpdate::AdamWUpdate(StepContext& ctx, optim::MatrixOptimizer& adamw)
    : ctx_(ctx), adamw_(adamw) {
  for (const plan::BufferPlan& bp : ctx.plan.buffers) {
    if (bp.matrix) continue;
    const layout::Buffer& buffer = ctx.plan.layout.buffers[bp.buffer];
    for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
      const layout::Bucket& bucket = buffer.buckets[k];
      switch (bp.param_sync) {
        case plan::ParamSync::kAllGather: {
          const plan::BucketCuts& cuts = bp.partition.buckets[k];
          const auto r = static_cast<std::size_t>(ctx.dp_rank);
          add_range(buffer, bp.buffer, cuts.pos[r], cuts.pos[r + 1]);
          break;
        }
        case plan::ParamSync::kNone:
          add_range(buffer, bp.buffer, bucket.start, bucket.end);
          break;
        case plan::ParamSync::kAllGatherOwned:
          for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
            if (bp.owner[e] == ctx.dp_rank) {
              add_range(buffer, bp.buffer, buffer.entries[e].start, buffer.entries[e].end);
            }
          }
          break;
      }
    }
  }
}

void AdamWUpdate::add_range(const layout::Buffer& buffer, std::size_t buffer_index,
                            std::int64_t begin, std::int64_t end) {
  if (end <= begin) return;
  // Padding inside the range is stepped too: zero gradient, zero moments and zero parameter
  // give a zero update, so it stays zero.
  states_.push_back(adamw_.make_state(1, end - begin));
  ctx_.allocated_bytes += states_.back()->bytes();
  optim::StepTask task;
  task.state = states_.back().get();
  task.param = ctx_.params[buffer_index] + begin;
  task.grad = ctx_.grads[buffer_index] + begin;
  task.shape = optim::Shape{1, end - begin};
  task.name = buffer.name;
  batch_.tasks.push_back(task);
  for (const layout::BufferEntry& e : buffer.entries) {
    const std::int64_t overlap = std::min(end, e.end) - std::max(begin, e.start);
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
