// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "measured_iteration.hpp"

#include "case_plan.hpp"
#include "iteration_adapter.hpp"
#include "iteration_counters.hpp"
#include "rank_session.hpp"
#include "rank_stats.hpp"
#include "step_counters.hpp"
#include "step_job.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

namespace canzona::bench::e2e {
namespace {

// Sums over the timed iterations of one kind; divided by their count at the end.
struct Totals {
  int iterations = 0;
  double max = 0;             ///< the slowest rank's iteration
  IterationRecord straggler;  ///< its phases
  void add(const RankRecords& ranks) {
    const RankSpread total = spread(ranks.field(0));
    const auto slowest = ranks.of(total.max_rank);
    ++iterations;
    max += total.max;
    straggler.total += slowest[0];
    straggler.forward += slowest[1];
    straggler.backward += slowest[2];
    straggler.step += slowest[3];
  }
  double mean(double sum) const { return sum / iterations; }
};

std::vector<double> record_fields(const IterationRecord& r) {
  return {r.total, r.forward, r.backward, r.step};
}

// The case being measured, kept across the calls Google Benchmark makes while it settles the
// iteration count (and across repetitions), so set-up and warm-up happen once per case.
struct CaseState {
  std::string name;
  std::unique_ptr<step::CasePlan> plan;
  std::unique_ptr<RankIteration> iteration;
};

std::unique_ptr<CaseState>& current_case() {
  static std::unique_ptr<CaseState> state;
  return state;
}

CaseState& case_state(step::StepJob& job, const E2ECase& c, const E2EOptions& options) {
  std::unique_ptr<CaseState>& current = current_case();
  const std::string name = benchmark_name(c);
  if (current && current->name == name) return *current;
  if (!current) on_job_end([] { current_case().reset(); });  // before the job's communicators
  current.reset();  // the previous case's model and executor free their memory first
  auto next = std::make_unique<CaseState>();
  next->name = name;
  next->plan =
      std::make_unique<step::CasePlan>(c.step, options.grid.step.gpus_per_node, *options.plan);
  next->iteration = std::make_unique<RankIteration>(job, *next->plan, c, options.micro_batches,
                                                    options.seed, options.torch_threads);
  current = std::move(next);
  return *current;
}

}  // namespace

void measured_iteration(benchmark::State& state, const E2ECase& c, const E2EOptions& options) {
  try {
    step::StepJob& job = step::StepJob::get(options.backend);
    const bool first_call = !current_case() || current_case()->name != benchmark_name(c);
    CaseState& cs = case_state(job, c, options);
    comm::Communicator& world = job.host_world();
    const auto one = [&](bool optimizer) {
      world.barrier().wait();
      return RankRecords::gather(world, record_fields(cs.iteration->run(optimizer)));
    };
    if (first_call) {
      for (int i = 0; i < options.warmup; ++i) {
        one(true);
        one(false);
      }
    }
    Totals with_step;
    Totals sync_only;
    for (auto _ : state) {
      // Alternating the order cancels what drifts within a pair (caches, the other ranks).
      const bool step_first = with_step.iterations % 2 == 0;
      if (!step_first) sync_only.add(one(false));
      const RankRecords timed = one(true);
      with_step.add(timed);
      if (step_first) sync_only.add(one(false));
      state.SetIterationTime(spread(timed.field(0)).max);
    }
    IterationCounters counters;
    counters.iteration_seconds = with_step.mean(with_step.max);
    counters.forward_seconds = with_step.mean(with_step.straggler.forward);
    counters.backward_seconds = with_step.mean(with_step.straggler.backward);
    counters.step_seconds = with_step.mean(with_step.straggler.step);
    counters.other_seconds =
        with_step.mean(with_step.straggler.total - with_step.straggler.forward -
                       with_step.straggler.backward - with_step.straggler.step);
    counters.grad_sync_only_seconds = sync_only.mean(sync_only.max);
    counters.optimizer_exposed_seconds =
        counters.iteration_seconds - *counters.grad_sync_only_seconds;
    report_iteration(state, counters, c, options.micro_batches);
    step::report_plan_facts(state, cs.plan->facts());
    state.SetLabel(step::row_label(cs.plan->facts(),
                                   {fmt::format("seed={}", options.seed),
                                    fmt::format("micro_batches={}", options.micro_batches)}));
  } catch (const std::exception& e) {
    // Other ranks may be inside a collective waiting for this one: end the job, do not hang it.
    if (job_size() > 1) abort_job(fmt::format("{}: {}", benchmark_name(c), e.what()), 3);
    state.SkipWithError(e.what());
  }
}

}  // namespace canzona::bench::e2e
