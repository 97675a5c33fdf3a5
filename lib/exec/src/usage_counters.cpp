// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "usage_counters.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace canzona::exec::detail {

UsageCounters::UsageCounters(const plan::StepPlan& plan)
    : param_entry_(plan.layout.params.size(), -1) {
  for (std::size_t i = 0; i < plan.matrices.size(); ++i) {
    const plan::MatrixPlan& m = plan.matrices[i];
    first_fragment_.push_back(entries_.size());
    for (std::size_t f = 0; f < m.fragments.size(); ++f) {
      OptimizerUsage u;
      u.param_index = m.param_index;
      u.name = m.fragments[f].name;
      u.matrix = static_cast<int>(i);
      u.fragment = static_cast<int>(f);
      entries_.push_back(std::move(u));
    }
  }
  std::vector<std::size_t> adamw_params;
  for (const plan::BufferPlan& bp : plan.buffers) {
    if (bp.matrix) continue;
    for (const layout::BufferEntry& e : plan.layout.buffers[bp.buffer].entries) {
      adamw_params.push_back(e.param_index);
    }
  }
  std::sort(adamw_params.begin(), adamw_params.end());
  for (std::size_t p : adamw_params) {
    param_entry_.at(p) = static_cast<std::ptrdiff_t>(entries_.size());
    OptimizerUsage u;
    u.param_index = p;
    u.name = plan.layout.params[p].name;
    entries_.push_back(std::move(u));
  }
}

std::size_t UsageCounters::fragment_entry(std::size_t matrix, std::size_t fragment) const {
  return first_fragment_.at(matrix) + fragment;
}

std::size_t UsageCounters::param_entry(std::size_t param_index) const {
  const std::ptrdiff_t entry = param_entry_.at(param_index);
  if (entry < 0) {
    throw Error(fmt::format("executor: parameter {} is not in an element-wise (AdamW) buffer",
                            param_index));
  }
  return static_cast<std::size_t>(entry);
}

void UsageCounters::begin_step() {
  for (OptimizerUsage& u : entries_) {
    u.steps.fill(0);
    u.elements.fill(0);
  }
}

void UsageCounters::add(std::size_t entry, optim::OptimizerKind kind, std::int64_t elements) {
  OptimizerUsage& u = entries_[entry];
  const auto k = static_cast<std::size_t>(kind);
  u.steps[k] += 1;
  u.elements[k] += elements;
  u.total_steps += 1;
}

void run_batch(optim::MatrixOptimizer& optimizer, const TrackedBatch& batch, UsageCounters& usage) {
  if (batch.tasks.empty()) return;
  optimizer.step_batch(batch.tasks);
  for (const UsageHit& hit : batch.hits) usage.add(hit.entry, optimizer.kind(), hit.elements);
}

void reserve_for(optim::MatrixOptimizer& optimizer, std::span<const TrackedBatch* const> batches) {
  // Per shape, the most tasks of that shape one batch holds: a big shape is not reserved at
  // the batch size of a small one that happens to be numerous.
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> largest;
  for (const TrackedBatch* batch : batches) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> per_shape;
    for (const optim::StepTask& task : batch->tasks) {
      ++per_shape[{task.shape.rows, task.shape.cols}];
    }
    for (const auto& [shape, n] : per_shape) largest[shape] = std::max(largest[shape], n);
  }
  for (const auto& [shape, n] : largest) {
    const optim::Shape one{shape.first, shape.second};
    optimizer.reserve(std::span<const optim::Shape>(&one, 1), n);
  }
}

}  // namespace canzona::exec::detail
