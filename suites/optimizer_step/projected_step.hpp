// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A projected row: the case's plan costed by the projector on an emulated cluster. Never a
// measurement: its name ends in /projected, its `projected` counter is 1 and its label starts
// with "projected topology=<name>".
#pragma once

#include "step_case.hpp"
#include "suite_options.hpp"

#include <benchmark/benchmark.h>

namespace canzona::bench::step {

/// Benchmark body; runs on one rank (projections need no communication).
void projected_step(benchmark::State& state, const StepCase& c, const SuiteOptions& options);

}  // namespace canzona::bench::step
