// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Optimizer-step suite: one distributed optimizer step of every strategy, measured on this job's
// ranks (run it under mpirun, one process per rank or GPU), and projected onto clusters larger
// than the job. README.md documents names, counters and flags.
#include "case_plan.hpp"
#include "case_projection.hpp"
#include "measured_step.hpp"
#include "projected_step.hpp"
#include "rank_session.hpp"
#include "step_case.hpp"
#include "step_job.hpp"
#include "suite.hpp"
#include "suite_options.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <cstdio>
#include <functional>
#include <string>

namespace canzona::bench {

void register_suite() {
  static const step::SuiteOptions options = step::read_suite_options();
  // Bad names fail here, on every rank alike, before anything runs.
  for (const std::string& strategy : options.grid.strategies) step::check_strategy(strategy);
  step::check_topology(options.topology);
  for (const std::string& optimizer : options.grid.optimizers) {
    step::default_refresh_interval(optimizer);
  }
  // What reproduces the rows besides their names and labels (results/SCHEMA.md).
  benchmark::AddCustomContext("canzona_backend", options.backend);
  benchmark::AddCustomContext("topology", options.topology);
  benchmark::AddCustomContext("canzona_seed", std::to_string(options.seed));
  benchmark::AddCustomContext("canzona_plan", options.plan->flags());
  // A run slowed on purpose says so wherever its file goes.
  if (options.slowdown > 0) {
    benchmark::AddCustomContext("canzona_inject_slowdown", fmt::format("{}", options.slowdown));
  }
  // Iteration counts and repetitions come from Google Benchmark's own flags
  // (--benchmark_min_time, --benchmark_repetitions); names carry no "/iterations:" part.
  // A GPU holds what its rank of the plan needs or the case is left out (the CPU machines this
  // suite runs on hold the scaled shapes many times over).
  // The estimate has come out as low as 0.8 of what was allocated: 0.7 leaves that margin.
  constexpr double kMemoryShare = 0.7;
  const double memory = step::device_memory_bytes(options.backend);
  int left_out = 0;
  for (const step::StepCase& c : step::measured_cases(options.grid, job_size())) {
    const std::string name = step::benchmark_name(c);
    if (!case_selected(name)) continue;
    const auto needed = [&] {
      const step::CasePlan plan(c, options.grid.gpus_per_node, *options.plan);
      return step::estimated_rank_bytes(plan) + step::kept_gradient_bytes(plan);
    };
    if (memory > 0 && needed() > kMemoryShare * memory) {
      ++left_out;
      continue;
    }
    benchmark::RegisterBenchmark(name.c_str(), step::measured_step, c, std::cref(options))
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  if (left_out > 0 && job_rank() == 0) {
    std::fprintf(stderr,
                 "note: %d measured case(s) left out: their ranks would need more than 70%% of "
                 "one device's %.1f GiB\n",
                 left_out, memory / (1 << 30));
  }
  // Projections need no other rank: rank 0 runs them after the measured rows, the others wait
  // for it at the end of the job.
  if (job_rank() != 0) return;
  // A projection is deterministic: one repetition, whatever --benchmark_repetitions says.
  for (const step::StepCase& c : step::projected_cases(options.grid, job_size())) {
    const std::string name = step::benchmark_name(c);
    if (!case_selected(name)) continue;
    benchmark::RegisterBenchmark(name.c_str(), step::projected_step, c, std::cref(options))
        ->UseManualTime()
        ->Repetitions(1)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace canzona::bench
