// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The DP side of every strategy: who steps the matrices of a matrix buffer across the DP group
// (Canzona's alpha-balanced partition, Eq.(1) static, DP-SC, layer-wise) and how its gradients
// and parameters are synchronised.
#include <canzona/core/error.hpp>
#include <canzona/plan/cost.hpp>
#include <canzona/plan/dp_partition.hpp>

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

}  // namespace

DpDecision decide_dp(const model::ModelSpec& model, const layout::Zero1Layout& layout,
                     const layout::Buffer& buffer, const plan::StrategyOptions& options) {
  const std::vector<double> costs = matrix_entry_costs(model, layout, buffer, options);
  DpDecision decision;
  switch (options.dp) {
    case plan::DpStrategy::kCanzona:
      decision.partition = plan::alpha_balanced_partition(buffer, options.alpha, costs,
                                                          options.cost == plan::CostKind::kFlops
                                                              ? plan::BalanceUnit::kCost
                                                              : plan::BalanceUnit::kElements);
      decision.owner = decision.partition.owner;
      return decision;
    case plan::DpStrategy::kStatic:
      decision.partition = plan::static_partition(buffer);
      decision.owner = decision.partition.owner;
      return decision;
    case plan::DpStrategy::kReplicated:
      decision.grad_sync = plan::GradSync::kAllReduce;
      decision.param_sync = plan::ParamSync::kNone;
      decision.partition = plan::even_partition(buffer);
      decision.owner.assign(buffer.entries.size(), -1);
      return decision;
    case plan::DpStrategy::kLayerwisePingPong:
    case plan::DpStrategy::kLayerwiseRoundRobin:
    case plan::DpStrategy::kLayerwiseLpt: {
      // Layer-wise deals tensors in model order; the buffer holds them reversed.
      std::vector<std::int64_t> numels;
      std::vector<double> model_order_costs;
      for (std::size_t e = buffer.entries.size(); e-- > 0;) {
        numels.push_back(buffer.entries[e].numel());
        model_order_costs.push_back(costs[e]);
      }
      const std::vector<int> owner =
          layerwise_assignment(numels, model_order_costs, buffer.dp, layerwise_mode(options.dp));
      decision.grad_sync = plan::GradSync::kAllReduce;
      decision.param_sync = plan::ParamSync::kAllGatherOwned;
      decision.partition = plan::even_partition(buffer);
      decision.owner.assign(owner.rbegin(), owner.rend());
      return decision;
    }
  }
  throw Error("decide_dp: unknown DP strategy");
}

}  // namespace canzona::baselines::detail
