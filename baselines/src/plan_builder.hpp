// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How make_step_plan builds a plan (internal to baselines/): every buffer gets the DP decision
// of the chosen DP strategy (dp_side.cpp), then compose_step_plan adds the matrices and the TP
// side (compose.cpp). Nothing outside this folder builds plans.
#pragma once

#include <canzona/layout/zero1.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/model/split.hpp>
#include <canzona/plan/step_plan.hpp>

#include <string>
#include <vector>

namespace canzona::baselines::detail {

/// What a DP strategy decided for one buffer: a partition (sharded strategies) or an owner per
/// entry (layer-wise; -1 everywhere for DP-SC and for an entry the element-wise split cuts).
struct DpDecision {
  plan::GradSync grad_sync = plan::GradSync::kReduceScatter;
  plan::ParamSync param_sync = plan::ParamSync::kAllGather;
  plan::DpPartition partition;
  std::vector<int> owner;
};

/// The cost of one fragment in options.cost units: its element count, or the mean FLOPs per
/// step of options.optimizer on its shape.
double fragment_cost(const model::Fragment& fragment, const plan::StrategyOptions& options);

/// The DP decision of options.dp for every buffer of `layout`, in layout order. Matrix buffers:
/// alpha-balanced (Canzona), Eq.(1) static, DP-SC or layer-wise, balancing Σ fragment_cost per
/// entry. AdamW buffers follow each baseline's own optimizer wrapper: DP-SC all-reduces and
/// steps them on every rank (Megatron's Float16OptimizerWithFloat16Params), layer-wise deals
/// them out together with the matrices (LayerWiseDistributedOptimizer), every other strategy
/// keeps ZeRO-1's element-wise split (Megatron's DistributedOptimizer).
std::vector<DpDecision> decide_dp(const model::ModelSpec& model, const layout::Zero1Layout& layout,
                                  const plan::StrategyOptions& options);

/// Assembles a plan from one DP decision per buffer of `layout` (decide_dp): matrices get
/// fragments, costs, state bytes and owners; the TP side is scheduled per DP rank from
/// `options`. Checks every invariant (plan::check_plan) before returning.
plan::StepPlan compose_step_plan(std::string strategy, const model::ModelSpec& model,
                                 layout::Zero1Layout layout, const plan::StrategyOptions& options,
                                 std::vector<DpDecision> dp_decisions);

}  // namespace canzona::baselines::detail
