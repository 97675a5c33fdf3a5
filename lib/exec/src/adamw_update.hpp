// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The element-wise side of a step (internal): AdamW on the fp32 main parameters of what this DP
// rank owns of every non-matrix buffer, one flat state per contiguous range.
#pragma once

#include <canzona/optim/matrix_optimizer.hpp>

#include <memory>
#include <vector>

#include "main_params.hpp"
#include "step_context.hpp"
#include "usage_counters.hpp"

namespace canzona::exec::detail {

class AdamWUpdate {
 public:
  /// The ranges this rank steps, per non-matrix buffer (MainParams::ranges): its slice of every
  /// bucket (ZeRO-1), the entries it owns (layer-wise), or every bucket whole (DP-SC).
  AdamWUpdate(StepContext& ctx, const MainParams& main, optim::MatrixOptimizer& adamw);

  /// One AdamW step of every range (timed as update).
  void step();

  const TrackedBatch& batch() const noexcept { return batch_; }

 private:
  void add_range(const OwnedRange& range);

  StepContext& ctx_;
  optim::MatrixOptimizer& adamw_;
  std::vector<std::unique_ptr<optim::MatrixState>> states_;
  TrackedBatch batch_;
};

}  // namespace canzona::exec::detail
