// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A measured row: the whole training iteration of a case (the libtorch Qwen3 model, its
// gradient sync overlapping backward, the executor's optimizer step) on every rank of this job.
#pragma once

#include "e2e_case.hpp"
#include "e2e_options.hpp"

#include <benchmark/benchmark.h>

namespace canzona::bench::e2e {

/// Benchmark body; every rank of the job runs it. A Google Benchmark iteration is a pair of
/// training iterations, alternating which comes first: one with the optimizer step and one with
/// the optimizer replaced by the gradient sync alone; before each, a barrier (untimed). Each
/// rank times its iterations with the host clock; an iteration's time is the maximum over
/// ranks. The row's time is the iteration with the optimizer; optimizer_exposed_ms is its mean
/// minus the mean of the other. Set-up and warm-up happen once per case. A failure on any rank
/// ends the whole job (abort_job).
void measured_iteration(benchmark::State& state, const E2ECase& c, const E2EOptions& options);

}  // namespace canzona::bench::e2e
