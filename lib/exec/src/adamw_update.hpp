// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The element-wise side of a step (internal): AdamW on what this DP rank owns of every
// non-matrix buffer, one flat state per contiguous range.
#pragma once

#include <canzona/optim/matrix_optimizer.hpp>

#include <memory>
#include <vector>

#include "step_context.hpp"
#include "usage_counters.hpp"

namespace canzona::exec::detail {

class AdamWUpdate {
 public:
  /// The ranges this rank steps, per non-matrix buffer: its slice of every bucket (param sync
  /// kAllGather), the entries it owns (kAllGatherOwned), or every bucket whole (kNone).
  AdamWUpdate(StepContext& ctx, optim::MatrixOptimizer& adamw);

  /// One AdamW step of every range (timed as update).
  void step();

  const TrackedBatch& batch() const noexcept { return batch_; }

 private:
  void add_range(const layout::Buffer& buffer, std::size_t buffer_index, std::int64_t begin,
                 std::int64_t end);

  StepContext& ctx_;
  optim::MatrixOptimizer& adamw_;
  std::vector<std::unique_ptr<optim::MatrixState>> states_;
  TrackedBatch batch_;
};

}  // namespace canzona::exec::detail
