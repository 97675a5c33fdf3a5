// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_counters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace canzona::bench::step {

void report_plan_facts(benchmark::State& state, const PlanFacts& facts) {
  state.counters["plan_imbalance"] = facts.imbalance;
  state.counters["state_bytes"] = facts.state_bytes;
  for (std::size_t i = 0; i < kCommPhases.size(); ++i) {
    state.counters[fmt::format("{}_bytes", plan::to_string(kCommPhases[i]))] =
        facts.max_bytes_sent[i];
  }
  state.counters["comm_bytes"] = facts.comm_bytes;
}

std::string row_label(const PlanFacts& facts, const std::vector<std::string>& fields) {
  std::string label = fmt::format("plan_hash={};options={}", facts.hash, facts.options);
  if (!fields.empty()) label += fmt::format(";{}", fmt::join(fields, ";"));
  return label;
}

}  // namespace canzona::bench::step
