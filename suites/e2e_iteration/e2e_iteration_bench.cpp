// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// End-to-end iteration suite: the whole training iteration of every strategy (the libtorch
// Qwen3 model with Megatron TP, its bucketed gradient sync overlapping backward, the executor's
// optimizer step), measured on this job's ranks (run it under mpirun), and projected onto
// clusters larger than the job. README.md documents names, counters and flags.
#include "case_plan.hpp"
#include "case_projection.hpp"
#include "e2e_case.hpp"
#include "e2e_options.hpp"
#include "iteration_adapter.hpp"
#include "measured_iteration.hpp"
#include "projected_iteration.hpp"
#include "rank_session.hpp"
#include "suite.hpp"

#include <canzona/torch_model/cuda_support.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace canzona::bench {

void register_suite() {
  static const e2e::E2EOptions options = e2e::read_e2e_options();
  // Bad names and shapes fail here, on every rank alike, before anything is allocated.
  for (const std::string& strategy : options.grid.step.strategies) step::check_strategy(strategy);
  step::check_topology(options.topology);
  for (const std::string& optimizer : options.grid.step.optimizers) {
    step::default_refresh_interval(optimizer);
  }
  benchmark::AddCustomContext("canzona_backend", options.backend);
  benchmark::AddCustomContext("topology", options.topology);
  benchmark::AddCustomContext("canzona_seed", std::to_string(options.seed));
  benchmark::AddCustomContext("canzona_plan", options.plan->flags());
  // A build whose libtorch cannot run the model on CUDA has no measured rows there (said once,
  // `run` passes the note on); the projected rows need no libtorch device and remain.
  const std::string no_cuda_model =
      options.backend == "cuda" ? torch_model::cuda_model_unavailable_reason() : "";
  if (!no_cuda_model.empty() && job_rank() == 0) {
    std::fprintf(stderr, "note: no measured E2EIteration rows on cuda: %s\n",
                 no_cuda_model.c_str());
  }
  for (const e2e::E2ECase& c : no_cuda_model.empty() ? e2e::measured_cases(options.grid, job_size())
                                                     : std::vector<e2e::E2ECase>{}) {
    const std::string name = e2e::benchmark_name(c);
    if (!case_selected(name)) continue;
    // The ranks of a CPU job share the machine they run on.
    e2e::check_rank_memory(step::CasePlan(c.step, options.grid.step.gpus_per_node, *options.plan),
                           c, options.backend, options.backend == "cpu" ? job_size() : 1,
                           options.rank_memory_bytes);
    benchmark::RegisterBenchmark(name.c_str(), e2e::measured_iteration, c, std::cref(options))
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  // Projections need no other rank: rank 0 runs them after the measured rows.
  if (job_rank() != 0) return;
  for (const e2e::E2ECase& c : e2e::projected_cases(options.grid, job_size())) {
    const std::string name = e2e::benchmark_name(c);
    if (!case_selected(name)) continue;
    benchmark::RegisterBenchmark(name.c_str(), e2e::projected_iteration, c, std::cref(options))
        ->UseManualTime()
        ->Repetitions(1)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace canzona::bench
