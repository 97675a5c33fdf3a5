// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Everything `canzona-bench plan` shows, computed once: the plan, its metrics and hash. The text
// and JSON views only format it.
#pragma once

#include <canzona/model/spec.hpp>
#include <canzona/plan/step_plan.hpp>

#include <canzona/bench/plan_settings_flags.hpp>

#include <cstdint>
#include <string>

namespace canzona::harness {

struct PlanReport {
  model::ModelSpec model;
  plan::StepPlan plan;
  plan::PlanMetrics metrics;
  std::uint64_t hash = 0;
  double planning_ms = 0;  ///< wall time of make_step_plan; varies run to run
  bench::PlanSettingsUse
      preset;  ///< the preset the settings came from and the flags that overrode it
};

/// The plan hash as 16 lowercase hex digits, as printed by both views.
std::string hash_hex(std::uint64_t hash);

/// Σ matrix cost / ranks: the first term of the lower bound (every matrix counted once, however
/// many ranks step it redundantly).
double mean_distinct_cost(const PlanReport& report);

}  // namespace canzona::harness
