// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "projected_iteration.hpp"

#include "case_plan.hpp"
#include "case_projection.hpp"
#include "iteration_counters.hpp"
#include "iteration_projection.hpp"
#include "step_counters.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace canzona::bench::e2e {

void projected_iteration(benchmark::State& state, const E2ECase& c, const E2EOptions& options) {
  try {
    // Projections are deterministic: one per case, whatever the iteration count and repetitions.
    static std::map<std::string, std::pair<step::PlanFacts, ProjectedIteration>> done;
    const int micro_batches = projected_micro_batches(options, c);
    const std::string name = benchmark_name(c);
    auto it = done.find(name);
    if (it == done.end()) {
      const step::CasePlan plan(c.step, options.grid.step.gpus_per_node, *options.plan);
      const step::ProjectedStep s = step::project_at_scale(plan, options.topology, options.backend);
      it = done.emplace(name, std::pair(plan.facts(),
                                        project_iteration(c, s, options.topology, micro_batches)))
               .first;
    }
    const auto& [facts, p] = it->second;
    for (auto _ : state) state.SetIterationTime(p.counters.iteration_seconds);
    report_iteration(state, p.counters, c, micro_batches);
    step::report_plan_facts(state, facts);
    state.SetLabel(step::row_label(
        facts, {fmt::format("topology={}", p.topology), fmt::format("compute={}", p.compute),
                fmt::format("gemm_efficiency={}", p.gemm_efficiency), "forward_backward=cost_model",
                fmt::format("micro_batches={}", micro_batches),
                fmt::format("global_batch={}", options.global_batch)}));
  } catch (const Error& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace canzona::bench::e2e
