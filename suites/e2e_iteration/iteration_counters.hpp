// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Counters both kinds of row report (results/SCHEMA.md is the contract; README.md lists them).
#pragma once

#include "e2e_case.hpp"

#include <benchmark/benchmark.h>

#include <optional>

namespace canzona::bench::e2e {

/// One row's iteration, seconds. Measured rows: the straggler's phases (the rank whose iteration
/// ended last); projected rows: the projection's.
struct IterationCounters {
  double iteration_seconds = 0;
  double forward_seconds = 0;
  double backward_seconds = 0;  ///< with the gradient sync it hides (measured)
  double step_seconds = 0;      ///< the optimizer step after backward, as the iteration runs it
  /// What the optimizer adds to the iteration: measured, the iteration minus the same iteration
  /// with the optimizer replaced by the gradient sync alone; projected, the step with the DP
  /// syncs Megatron overlaps hidden.
  double optimizer_exposed_seconds = 0;
  std::optional<double> other_seconds;            ///< measured: outside the three phases
  std::optional<double> grad_sync_only_seconds;   ///< measured: the iteration without optimizer
  std::optional<double> tp_comm_seconds;          ///< projected: TP all-reduces of fwd + bwd
  std::optional<double> dp_sync_exposed_seconds;  ///< projected: DP sync not hidden by fwd / bwd
};

/// Sets `projected`, the `*_ms` counters, `tokens` (per iteration over the job), `tokens_per_s`
/// `model_tflops` (model::training_flops of the iteration over its time, the whole job) and
/// `model_tflops_per_gpu` (the same over dp · tp, Megatron's TFLOP/s/GPU).
void report_iteration(benchmark::State& state, const IterationCounters& counters, const E2ECase& c,
                      int micro_batches);

/// Tokens one iteration trains over all DP ranks: dp · micro_batches · mbs · seq.
double iteration_tokens(const E2ECase& c, int micro_batches);

}  // namespace canzona::bench::e2e
