// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The DP side of every strategy: who steps what of each buffer across the DP group (Canzona's
// alpha-balanced partition, Eq.(1) static, DP-SC, layer-wise) and how its gradients and
// parameters are synchronised, each baseline with its own Megatron optimizer wrapper.
#include <canzona/core/error.hpp>
#include <canzona/plan/cost.hpp>
#include <canzona/plan/dp_partition.hpp>

#include <algorithm>

#include "canzona/baselines/layerwise.hpp"
#include "plan_builder.hpp"

namespace canzona::baselines::detail {
namespace {

LayerwiseMode layerwise_mode(plan::DpStrategy dp) {
  switch (dp) {
    case plan::DpStrategy::kLayerwiseRoundRobin:
      return LayerwiseMode::kRoundRobin;
    case plan::DpStrategy::kLayerwiseLpt:
      return LayerwiseMode::kLpt;
    default:
      return LayerwiseMode::kPingPongNumel;
  }
}

bool layerwise(plan::DpStrategy dp) {
  return dp == plan::DpStrategy::kLayerwisePingPong ||
         dp == plan::DpStrategy::kLayerwiseRoundRobin || dp == plan::DpStrategy::kLayerwiseLpt;
}

bool holds_matrices(const layout::Buffer& buffer) {
  return std::any_of(buffer.entries.begin(), buffer.entries.end(),
                     [](const layout::BufferEntry& e) { return e.matrix; });
}

// One value per entry of `buffer`: for a matrix entry Σ fragment_cost over its fragments; for any
// other entry its element count (numel) or AdamW FLOPs. What the DP planners balance.
std::vector<double> matrix_entry_costs(const model::ModelSpec& model,
                                       const layout::Zero1Layout& layout,
                                       const layout::Buffer& buffer,
                                       const plan::StrategyOptions& options) {
  std::vector<double> costs = plan::entry_costs(layout, buffer, options.cost, options.optimizer);
  for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
    const layout::BufferEntry& entry = buffer.entries[e];
    if (!entry.matrix || options.optimizer.kind == optim::OptimizerKind::kAdamW) continue;
    const model::ParamSpec& param = layout.params.at(entry.param_index);
    double cost = 0;
    for (const model::Fragment& fragment :
         plan::plan_fragments(param, model, options.split, layout.config.tp)) {
      cost += fragment_cost(fragment, options);
    }
    costs[e] = cost;
  }
  return costs;
}

// Megatron's DistributedOptimizer (ZeRO-1): equal chunks of every bucket, reduce-scatter,
// each rank steps its chunk, all-gather.
DpDecision element_wise(const layout::Buffer& buffer) {
  DpDecision decision;
  decision.partition = plan::even_partition(buffer);
  decision.owner = decision.partition.owner;
  return decision;
}

// DP-SC (Float16OptimizerWithFloat16Params without a distributed optimizer): all-reduce, every
// rank steps everything, no parameter sync.
DpDecision replicated(const layout::Buffer& buffer) {
  DpDecision decision;
  decision.grad_sync = plan::GradSync::kAllReduce;
  decision.param_sync = plan::ParamSync::kNone;
  decision.partition = plan::even_partition(buffer);
  decision.owner.assign(buffer.entries.size(), -1);
  return decision;
}

DpDecision matrix_partition(const model::ModelSpec& model, const layout::Zero1Layout& layout,
                            const layout::Buffer& buffer, const plan::StrategyOptions& options) {
  DpDecision decision;
  if (options.dp == plan::DpStrategy::kCanzona) {
    const std::vector<double> costs = matrix_entry_costs(model, layout, buffer, options);
    decision.partition = plan::alpha_balanced_partition(
        buffer, options.alpha, costs,
        options.dp_balance == plan::DpBalance::kRefined ? plan::BalanceUnit::kCost
                                                        : plan::BalanceUnit::kElements);
  } else {
    decision.partition = plan::static_partition(buffer);
  }
  decision.owner = decision.partition.owner;
  return decision;
}

// NVIDIA's LayerWiseDistributedOptimizer: every parameter of a group of buffers (the dense ones,
// or the expert ones) dealt whole to one DP rank; Megatron lists the matrix optimizer's
// parameters first, then AdamW's, each in model order (the buffers hold them reversed).
// Gradients are all-reduced; each rank steps what it owns and the owners' parameters travel
// in one all-gather-v per group.
void deal_layerwise(const model::ModelSpec& model, const layout::Zero1Layout& layout,
                    const std::vector<std::size_t>& buffers, const plan::StrategyOptions& options,
                    std::vector<DpDecision>& decisions) {
  std::vector<std::pair<std::size_t, std::size_t>> items;  // (buffer, entry), dealing order
  std::vector<std::int64_t> numels;
  std::vector<double> costs;
  for (const bool matrices : {true, false}) {
    for (std::size_t b : buffers) {
      const layout::Buffer& buffer = layout.buffers[b];
      if (holds_matrices(buffer) != matrices) continue;
      const std::vector<double> entry_costs = matrix_entry_costs(model, layout, buffer, options);
      for (std::size_t e = buffer.entries.size(); e-- > 0;) {
        items.emplace_back(b, e);
        numels.push_back(buffer.entries[e].numel());
        costs.push_back(entry_costs[e]);
      }
    }
  }
  const std::vector<int> owner =
      layerwise_assignment(numels, costs, layout.config.dp, layerwise_mode(options.dp));
  for (std::size_t b : buffers) {
    DpDecision& decision = decisions[b];
    decision.grad_sync = plan::GradSync::kAllReduce;
    decision.param_sync = plan::ParamSync::kAllGatherOwned;
    decision.partition = plan::even_partition(layout.buffers[b]);
    decision.owner.assign(layout.buffers[b].entries.size(), -1);
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    decisions[items[i].first].owner[items[i].second] = owner[i];
  }
}

}  // namespace

std::vector<DpDecision> decide_dp(const model::ModelSpec& model, const layout::Zero1Layout& layout,
                                  const plan::StrategyOptions& options) {
  std::vector<DpDecision> decisions(layout.buffers.size());
  if (layerwise(options.dp)) {
    std::vector<std::size_t> dense;
    std::vector<std::size_t> expert;
    for (std::size_t b = 0; b < layout.buffers.size(); ++b) {
      (layout.buffers[b].expert ? expert : dense).push_back(b);
    }
    for (const auto* group : {&dense, &expert}) {
      if (!group->empty()) deal_layerwise(model, layout, *group, options, decisions);
    }
    return decisions;
  }
  for (std::size_t b = 0; b < layout.buffers.size(); ++b) {
    const layout::Buffer& buffer = layout.buffers[b];
    if (options.dp == plan::DpStrategy::kReplicated) {
      decisions[b] = replicated(buffer);
    } else if (holds_matrices(buffer)) {
      decisions[b] = matrix_partition(model, layout, buffer, options);
    } else {
      decisions[b] = element_wise(buffer);
    }
  }
  return decisions;
}

}  // namespace canzona::baselines::detail
