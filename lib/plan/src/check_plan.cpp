// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// check_plan: the invariants every StepPlan must satisfy before anyone runs or costs it.
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <vector>

#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {
namespace {

[[noreturn]] void fail(const StepPlan& plan, const std::string& what) {
  throw Error(fmt::format("invalid plan '{}' (dp {} x tp {}): {}", plan.strategy, plan.dp(),
                          plan.tp(), what));
}

void check_buffers(const StepPlan& plan) {
  if (plan.buffers.size() != plan.layout.buffers.size()) {
    fail(plan, fmt::format("{} buffer plans for {} layout buffers", plan.buffers.size(),
                           plan.layout.buffers.size()));
  }
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const BufferPlan& bp = plan.buffers[b];
    const layout::Buffer& buffer = plan.layout.buffers[b];
    if (bp.buffer != b) fail(plan, fmt::format("buffer plan {} refers to buffer {}", b, bp.buffer));
    if (bp.owner.size() != buffer.entries.size()) {
      fail(plan, fmt::format("buffer '{}': {} owners for {} entries", buffer.name, bp.owner.size(),
                             buffer.entries.size()));
    }
    if (bp.partition.buckets.size() != buffer.buckets.size()) {
      fail(plan, fmt::format("buffer '{}': {} bucket cuts for {} buckets", buffer.name,
                             bp.partition.buckets.size(), buffer.buckets.size()));
    }
    for (int owner : bp.owner) {
      if (owner < -1 || owner >= plan.dp()) {
        fail(plan,
             fmt::format("buffer '{}': owner {} outside [-1, {})", buffer.name, owner, plan.dp()));
      }
    }
    const bool sharded = bp.grad_sync == GradSync::kReduceScatter;
    if (bp.matrix && sharded) {
      // Atomicity (DESIGN §3): no cut inside a matrix, owners inside their slices.
      check_partition(buffer, bp.partition);
      if (bp.owner != bp.partition.owner) {
        fail(plan, fmt::format("buffer '{}': owners disagree with the partition", buffer.name));
      }
    }
    if (bp.param_sync == ParamSync::kAllGather && !sharded) {
      fail(plan, fmt::format("buffer '{}': all-gather on cuts needs a reduce-scatter grad sync",
                             buffer.name));
    }
    if (bp.param_sync == ParamSync::kAllGatherOwned) {
      for (int owner : bp.owner) {
        if (owner == -1) {
          fail(plan, fmt::format("buffer '{}': an all-gather of owned entries needs an owner "
                                 "for every entry",
                                 buffer.name));
        }
      }
    }
  }
}

bool steps_each_matrix_once(const StepPlan& plan, std::int64_t capacity, bool bounded);
void name_the_fault_rank_by_rank(const StepPlan& plan, std::int64_t capacity, bool bounded);

// Each DP rank's TP group steps each of its matrices exactly once: hosted in one slot of one
// micro-group, or listed once as replicated.
void check_matrices(const StepPlan& plan) {
  const std::int64_t capacity = slot_capacity_elements(plan.options, plan.tp());
  const bool bounded = plan.options.tp == TpStrategy::kCanzona &&
                       plan.options.tp_schedule == MicroGroupMode::kGlobal && capacity > 0;
  std::size_t matrix_entries = 0;
  for (const BufferPlan& bp : plan.buffers) {
    if (!bp.matrix) continue;
    for (const layout::BufferEntry& e : plan.layout.buffers[bp.buffer].entries) {
      matrix_entries += e.matrix ? 1 : 0;
    }
  }
  if (matrix_entries != plan.matrices.size()) {
    fail(plan, fmt::format("{} matrix plans for {} matrix entries", plan.matrices.size(),
                           matrix_entries));
  }
  for (const MatrixPlan& m : plan.matrices) {
    const BufferPlan& bp = plan.buffers.at(m.buffer);
    if (bp.owner.at(m.entry) != m.dp_owner) {
      fail(plan, fmt::format("matrix '{}': DP owner {} but the buffer says {}", m.name, m.dp_owner,
                             bp.owner.at(m.entry)));
    }
    if (m.dp_owner == -1 && bp.grad_sync == GradSync::kReduceScatter) {
      fail(plan, fmt::format("matrix '{}' has no DP owner in a reduce-scattered buffer", m.name));
    }
    if (m.tp_host < -1 || m.tp_host >= plan.tp()) {
      fail(plan,
           fmt::format("matrix '{}': TP host {} outside [-1, {})", m.name, m.tp_host, plan.tp()));
    }
  }
  if (!steps_each_matrix_once(plan, capacity, bounded)) {
    name_the_fault_rank_by_rank(plan, capacity, bounded);
  }
}

// Every DP rank steps the matrices it owns and the replicated ones exactly once, each in the
// slot of its host, within the slot capacity: one pass over the ranks' lists, O(matrices + Σ
// list lengths) where the per-rank check below is O(dp × matrices) (seconds on MoE models at
// 1024 GPUs). False when anything is off; the per-rank check then names it.
bool steps_each_matrix_once(const StepPlan& plan, std::int64_t capacity, bool bounded) {
  const std::size_t n = plan.matrices.size();
  std::vector<int> owned_steps(n, 0), shared_steps(n, 0), last_rank(n, -1);
  const auto step = [&](int d, std::size_t i) {
    if (i >= n) return false;
    const int owner = plan.matrices[i].dp_owner;
    if (owner == d) return ++owned_steps[i] == 1;
    if (owner != -1 || last_rank[i] == d) return false;
    last_rank[i] = d;
    ++shared_steps[i];
    return true;
  };
  for (int d = 0; d < plan.dp(); ++d) {
    for (const MicroGroupPlan& group : plan.micro_groups.at(static_cast<std::size_t>(d))) {
      if (static_cast<int>(group.slots.size()) != plan.tp()) return false;
      for (std::size_t slot = 0; slot < group.slots.size(); ++slot) {
        std::int64_t slot_numel = 0;
        for (const std::size_t i : group.slots[slot]) {
          if (!step(d, i) || plan.matrices[i].tp_host != static_cast<int>(slot)) return false;
          slot_numel += plan.matrices[i].full.rows * plan.matrices[i].full.cols;
        }
        if (bounded && slot_numel > capacity) return false;
      }
    }
    for (const std::size_t i : plan.replicated_matrices.at(static_cast<std::size_t>(d))) {
      if (!step(d, i) || plan.matrices[i].tp_host != -1) return false;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const bool shared = plan.matrices[i].dp_owner == -1;
    if (shared ? shared_steps[i] != plan.dp() : owned_steps[i] != 1) return false;
  }
  return true;
}

void name_the_fault_rank_by_rank(const StepPlan& plan, std::int64_t capacity, bool bounded) {
  for (int d = 0; d < plan.dp(); ++d) {
    std::vector<int> seen(plan.matrices.size(), 0);
    for (const MicroGroupPlan& group : plan.micro_groups.at(static_cast<std::size_t>(d))) {
      if (static_cast<int>(group.slots.size()) != plan.tp()) {
        fail(plan, fmt::format("DP rank {}: a micro-group with {} slots for tp {}", d,
                               group.slots.size(), plan.tp()));
      }
      for (std::size_t slot = 0; slot < group.slots.size(); ++slot) {
        std::int64_t slot_numel = 0;
        for (std::size_t i : group.slots[slot]) {
          const MatrixPlan& m = plan.matrices.at(i);
          if (m.tp_host != static_cast<int>(slot)) {
            fail(plan, fmt::format("matrix '{}' sits in slot {} but names host {}", m.name, slot,
                                   m.tp_host));
          }
          slot_numel += m.full.rows * m.full.cols;
          ++seen[i];
        }
        if (bounded && slot_numel > capacity) {
          fail(plan, fmt::format("DP rank {}: a slot holds {} elements, above the capacity {}", d,
                                 slot_numel, capacity));
        }
      }
    }
    for (std::size_t i : plan.replicated_matrices.at(static_cast<std::size_t>(d))) {
      if (plan.matrices.at(i).tp_host != -1) {
        fail(plan, fmt::format("matrix '{}' is both hosted and replicated", plan.matrices[i].name));
      }
      ++seen[i];
    }
    for (std::size_t i = 0; i < plan.matrices.size(); ++i) {
      const MatrixPlan& m = plan.matrices[i];
      const int expected = (m.dp_owner == d || m.dp_owner == -1) ? 1 : 0;
      if (seen[i] != expected) {
        fail(plan, fmt::format("DP rank {} steps matrix '{}' {} times, expected {}", d, m.name,
                               seen[i], expected));
      }
    }
  }
}

}  // namespace

void check_plan(const StepPlan& plan) {
  if (plan.micro_groups.size() != static_cast<std::size_t>(plan.dp()) ||
      plan.replicated_matrices.size() != static_cast<std::size_t>(plan.dp())) {
    fail(plan, "micro-group and replicated lists need one entry per DP rank");
  }
  check_buffers(plan);
  check_matrices(plan);
}

}  // namespace canzona::plan
