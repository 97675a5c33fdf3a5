// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The strategy registry: the names the paper compares (canzona, sc, layerwise, ...) and the
// DP × TP combinations, turned into StepPlans. make_step_plan is the one place a plan is built:
// it combines Canzona's planners (lib/plan) with the baseline planners of this folder
// (README.md, "Where plans are built").
#pragma once

#include <canzona/layout/parallel_config.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/plan/step_plan.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace canzona::baselines {

/// The named strategies of `--strategy`:
///   canzona   = Canzona DP + Canzona TP (global schedule)
///   sc        = DP-SC + TP-SC
///   layerwise = NVIDIA layer-wise (ping-pong) + TP-SC
///   zero1     = Eq.(1) static + TP-SC (the closest whole-tensor ZeRO-1 baseline)
///   asc       = Canzona DP + ASC (async TP without balancing)
std::vector<std::string_view> strategy_names();

/// Sets options.dp and options.tp for a named strategy or a "<dp>+<tp>" combination of the
/// side names (plan::parse_dp_strategy / parse_tp_strategy, e.g. "static+asc"); ConfigError
/// listing the names otherwise.
void apply_strategy(std::string_view name, plan::StrategyOptions& options);

/// The display name of a DP × TP combination: the registry name when one matches, else
/// "<dp>+<tp>" (e.g. "static+asc").
std::string strategy_name(const plan::StrategyOptions& options);

/// The options make_step_plan builds a plan for `config` with, and the plan's `options` hold:
/// the ZeRO-1 options resolved for `config` (separate matrix buffer, bucket size following dp).
/// What a plan's options are compared against without building a second plan.
plan::StrategyOptions resolved_options(const layout::ParallelConfig& config,
                                       const plan::StrategyOptions& options);

/// Builds the plan: validates the options and the parallel config against the model, builds the
/// ZeRO-1 layout (separate matrix buffer), decides the DP side of every matrix buffer
/// (alpha-balanced / static / replicated / layer-wise on the options' cost) and composes the TP
/// side. Pure and deterministic. ConfigError on bad input.
plan::StepPlan make_step_plan(const model::ModelSpec& model, const layout::ParallelConfig& config,
                              const plan::StrategyOptions& options);

}  // namespace canzona::baselines
