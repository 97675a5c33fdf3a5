// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The usage record behind Executor::usage() (internal), and TrackedBatch: a step_batch call
// together with the usage entries it counts, so nothing can run without being recorded.
#pragma once

#include <canzona/exec/usage.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace canzona::exec::detail {

class UsageCounters {
 public:
  /// One entry per fragment of every plan matrix, then one per parameter of the element-wise
  /// (non-matrix) buffers.
  explicit UsageCounters(const plan::StepPlan& plan);

  std::size_t fragment_entry(std::size_t matrix, std::size_t fragment) const;
  /// The entry of an AdamW parameter (layout param index); canzona::Error if it has none.
  std::size_t param_entry(std::size_t param_index) const;

  /// Zeroes the last-step counters.
  void begin_step();
  void add(std::size_t entry, optim::OptimizerKind kind, std::int64_t elements);
  const std::vector<OptimizerUsage>& entries() const noexcept { return entries_; }

 private:
  std::vector<OptimizerUsage> entries_;
  std::vector<std::size_t> first_fragment_;  // per matrix: entry of its fragment 0
  std::vector<std::ptrdiff_t> param_entry_;  // per layout param: AdamW entry or -1
};

/// An entry touched by a batch: one optimizer call over `elements` of it.
struct UsageHit {
  std::size_t entry = 0;
  std::int64_t elements = 0;
};

/// The tasks of one step_batch call and the usage entries they cover.
struct TrackedBatch {
  std::vector<optim::StepTask> tasks;
  std::vector<UsageHit> hits;
};

/// optimizer.step_batch(batch.tasks), then counts every hit under optimizer.kind().
void run_batch(optim::MatrixOptimizer& optimizer, const TrackedBatch& batch, UsageCounters& usage);

/// Reserves `optimizer`'s workspace for the largest same-shape group of any batch.
void reserve_for(optim::MatrixOptimizer& optimizer, std::span<const TrackedBatch* const> batches);

}  // namespace canzona::exec::detail
