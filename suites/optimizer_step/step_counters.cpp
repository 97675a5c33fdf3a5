// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_counters.hpp"

#include <fmt/format.h>

namespace canzona::bench::step {

void report_plan_facts(benchmark::State& state, const PlanFacts& facts) {
  state.counters["imbalance"] = facts.imbalance;
  state.counters["max_state_bytes"] = facts.max_state_bytes;
  for (std::size_t i = 0; i < kCommPhases; ++i) {
    state.counters[fmt::format("{}_bytes", kCommPhaseNames[i])] = facts.max_bytes_sent[i];
  }
}

std::string plan_label(const PlanFacts& facts) {
  return fmt::format("plan_hash={} options={}", facts.hash, facts.options);
}

}  // namespace canzona::bench::step
