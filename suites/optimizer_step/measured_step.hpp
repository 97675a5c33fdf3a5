// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A measured row: the case's plan run by the executor on every rank of this job.
#pragma once

#include "step_case.hpp"
#include "suite_options.hpp"

#include <benchmark/benchmark.h>

namespace canzona::bench::step {

/// Benchmark body; every rank of the job runs it. Each step: gradients reloaded and a barrier
/// (untimed), then the step, timed by each rank's executor (its steady clock, or CUDA events on
/// the cuda backend) and reduced over ranks; its time is the maximum. An iteration is one step
/// (Muon) or a window of one refresh interval (Shampoo, SOAP: the amortised step). The iteration
/// time is manual, identical on every rank, so Google Benchmark picks the same iteration count
/// everywhere. Set-up and warm-up happen once per case. A failure on any rank ends the whole job
/// (abort_job).
void measured_step(benchmark::State& state, const StepCase& c, const SuiteOptions& options);

}  // namespace canzona::bench::step
