// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "projected_step.hpp"

#include "case_plan.hpp"
#include "case_projection.hpp"
#include "step_counters.hpp"

#include <canzona/core/error.hpp>
#include <canzona/plan/partition_memo.hpp>

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace canzona::bench::step {

void projected_step(benchmark::State& state, const StepCase& c, const SuiteOptions& options) {
  try {
    // Projections are deterministic: one per case, whatever the iteration count and repetitions.
    static std::map<std::string, std::pair<PlanFacts, ProjectedStep>> done;
    const std::string name = benchmark_name(c);
    auto it = done.find(name);
    if (it == done.end()) {
      // The strategies of one model and GPU count share DP partitions: plan each once.
      static plan::RememberedPartitions remembered;
      const CasePlan plan(c, options.grid.gpus_per_node, *options.plan);
      it = done.emplace(name, std::pair(plan.facts(),
                                        project_at_scale(plan, options.topology, options.backend)))
               .first;
    }
    const auto& [facts, p] = it->second;
    for (auto _ : state) state.SetIterationTime(p.step_seconds);
    state.counters["projected"] = 1;
    state.counters["optimizer_ms"] = ms(p.optimizer_seconds);
    state.counters["imbalance"] = p.compute_imbalance;
    state.counters["straggler_rank"] = p.straggler_rank;
    for (std::size_t s = 0; s < kSlots; ++s) {
      state.counters[slot_counter(s)] = ms(p.straggler[s]);
    }
    report_plan_facts(state, facts);
    std::vector<std::string> fields = {fmt::format("topology={}", p.topology),
                                       fmt::format("compute={}", p.compute)};
    if (p.gemm_efficiency > 0)
      fields.push_back(fmt::format("gemm_efficiency={}", p.gemm_efficiency));
    state.SetLabel(row_label(facts, fields));
  } catch (const Error& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace canzona::bench::step
