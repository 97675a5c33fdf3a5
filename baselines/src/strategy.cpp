// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The strategy registry: named DP × TP combinations, and make_step_plan, the one place a plan is
// built.
#include "canzona/baselines/strategy.hpp"

#include <canzona/core/error.hpp>
#include <canzona/layout/zero1.hpp>

#include <fmt/format.h>

#include <array>

#include "plan_builder.hpp"

namespace canzona::baselines {
namespace {

struct NamedStrategy {
  std::string_view name;
  plan::DpStrategy dp;
  plan::TpStrategy tp;
};

constexpr std::array<NamedStrategy, 5> kStrategies = {{
    {"canzona", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona},
    {"sc", plan::DpStrategy::kReplicated, plan::TpStrategy::kReplicated},
    {"layerwise", plan::DpStrategy::kLayerwisePingPong, plan::TpStrategy::kReplicated},
    {"zero1", plan::DpStrategy::kStatic, plan::TpStrategy::kReplicated},
    {"asc", plan::DpStrategy::kCanzona, plan::TpStrategy::kAsync},
}};

}  // namespace

std::vector<std::string_view> strategy_names() {
  std::vector<std::string_view> names;
  for (const NamedStrategy& s : kStrategies) names.push_back(s.name);
  return names;
}

void apply_strategy(std::string_view name, plan::StrategyOptions& options) {
  for (const NamedStrategy& s : kStrategies) {
    if (s.name == name) {
      options.dp = s.dp;
      options.tp = s.tp;
      return;
    }
  }
  const std::size_t plus = name.find('+');
  if (plus != std::string_view::npos) {
    options.dp = plan::parse_dp_strategy(name.substr(0, plus));
    options.tp = plan::parse_tp_strategy(name.substr(plus + 1));
    return;
  }
  throw ConfigError(
      fmt::format("unknown strategy '{}'; choose one of: {}, or a combination "
                  "<dp>+<tp> such as static+asc (or pick the sides with "
                  "--dp-strategy and --tp-strategy)",
                  name, fmt::join(strategy_names(), ", ")));
}

std::string strategy_name(const plan::StrategyOptions& options) {
  for (const NamedStrategy& s : kStrategies) {
    if (s.dp == options.dp && s.tp == options.tp) return std::string(s.name);
  }
  return fmt::format("{}+{}", plan::to_string(options.dp), plan::to_string(options.tp));
}

plan::StrategyOptions resolved_options(const layout::ParallelConfig& config,
                                       const plan::StrategyOptions& options) {
  plan::StrategyOptions resolved = options;
  resolved.zero1.separate_matrix_buffer = true;
  resolved.zero1 = layout::resolved_zero1_options(resolved.zero1, config);
  return resolved;
}

plan::StepPlan make_step_plan(const model::ModelSpec& model, const layout::ParallelConfig& config,
                              const plan::StrategyOptions& options) {
  plan::validate(options);
  const plan::StrategyOptions resolved = resolved_options(config, options);
  layout::Zero1Layout layout = layout::build_zero1_layout(model, config, resolved.zero1);
  std::vector<detail::DpDecision> decisions = detail::decide_dp(model, layout, options);
  return detail::compose_step_plan(strategy_name(options), model, std::move(layout), resolved,
                                   std::move(decisions));
}

}  // namespace canzona::baselines
