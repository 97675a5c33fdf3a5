// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// plan_metrics: per-rank matrix work, optimizer state and bytes per phase, and the imbalance and
// lower bound the strategies are compared by.
#include <canzona/optim/cost_model.hpp>

#include <algorithm>
#include <numeric>

#include "canzona/plan/metrics.hpp"
#include "canzona/plan/rank_work.hpp"
#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {
namespace {

constexpr std::int64_t kAdamWStateBytesPerElement = 8;  // exp_avg and exp_avg_sq, fp32

void add_matrix(RankLoad& load, const MatrixPlan& m) {
  load.cost += m.cost;
  load.flops += m.flops;
  load.state_bytes += m.state_bytes;
}

void add_adamw_slices(const StepPlan& plan, RankLoad& load) {
  load.adamw_elements = adamw_elements(plan, load.dp_rank);
  load.adamw_flops = static_cast<double>(load.adamw_elements) * optim::flops::kAdamWStep;
  load.state_bytes += load.adamw_elements * kAdamWStateBytesPerElement;
}

void add_bytes(const StepPlan& plan, RankLoad& load) {
  for (const PlannedCollective& c : rank_collectives(plan, load.dp_rank, load.tp_rank)) {
    const auto phase = static_cast<std::size_t>(c.phase);
    load.bytes_sent[phase] += c.bytes_sent;
    load.bytes_received[phase] += c.bytes_received;
  }
}

// Elements of one buffer DP rank `dp_rank` steps: its slice of every bucket (ZeRO-1), every
// element (DP-SC), or the entries it owns (layer-wise).
std::int64_t stepped_elements(const StepPlan& plan, const BufferPlan& bp, int dp_rank) {
  const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
  std::int64_t elements = 0;
  switch (bp.param_sync) {
    case ParamSync::kAllGather:
      for (const BucketCuts& cuts : bp.partition.buckets) elements += cuts.slice(dp_rank);
      break;
    case ParamSync::kNone:
      elements += buffer.total;
      break;
    case ParamSync::kAllGatherOwned:
      for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
        if (bp.owner[e] == dp_rank) elements += buffer.entries[e].numel();
      }
      break;
  }
  return elements;
}

}  // namespace

std::int64_t adamw_elements(const StepPlan& plan, int dp_rank) {
  std::int64_t elements = 0;
  for (const BufferPlan& bp : plan.buffers) {
    if (!bp.matrix) elements += stepped_elements(plan, bp, dp_rank);
  }
  return elements;
}

std::int64_t stepped_elements(const StepPlan& plan, int dp_rank) {
  std::int64_t elements = 0;
  for (const BufferPlan& bp : plan.buffers) elements += stepped_elements(plan, bp, dp_rank);
  return elements;
}

PlanMetrics plan_metrics(const StepPlan& plan) {
  PlanMetrics metrics;
  const int dp = plan.dp();
  const int tp = plan.tp();
  for (int d = 0; d < dp; ++d) {
    for (int t = 0; t < tp; ++t) {
      RankLoad load;
      load.dp_rank = d;
      load.tp_rank = t;
      for (std::size_t i : plan.replicated_matrices[static_cast<std::size_t>(d)]) {
        add_matrix(load, plan.matrices[i]);
      }
      for (const MicroGroupPlan& group : plan.micro_groups[static_cast<std::size_t>(d)]) {
        for (std::size_t i : group.slots[static_cast<std::size_t>(t)]) {
          add_matrix(load, plan.matrices[i]);
        }
      }
      add_adamw_slices(plan, load);
      add_bytes(plan, load);
      metrics.ranks.push_back(load);
    }
  }
  std::vector<double> cost;
  std::vector<double> flops;
  for (const RankLoad& load : metrics.ranks) {
    cost.push_back(load.cost);
    flops.push_back(load.flops);
  }
  metrics.imbalance = max_over_mean(cost);
  metrics.flops_imbalance = max_over_mean(flops);
  metrics.max_cost = cost.empty() ? 0 : *std::max_element(cost.begin(), cost.end());

  double total = 0;
  double largest = 0;
  for (const MatrixPlan& m : plan.matrices) {
    total += m.cost;
    for (double c : m.fragment_cost) largest = std::max(largest, c);
  }
  metrics.lower_bound = std::max(total / static_cast<double>(dp * tp), largest);
  metrics.max_over_lower_bound =
      metrics.lower_bound > 0 ? metrics.max_cost / metrics.lower_bound : 1;
  const double mean_cost =
      cost.empty() ? 0 : std::accumulate(cost.begin(), cost.end(), 0.0) / cost.size();
  metrics.imbalance_floor = mean_cost > 0 ? std::max(1.0, largest / mean_cost) : 1;
  return metrics;
}

}  // namespace canzona::plan
