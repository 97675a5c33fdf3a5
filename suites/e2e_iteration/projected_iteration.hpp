// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A projected row: the case's iteration projected onto an emulated cluster
// (iteration_projection.hpp). Never a measurement: its name ends in /projected, its `projected`
// counter is 1 and its label names its topology.
#pragma once

#include "e2e_case.hpp"
#include "e2e_options.hpp"

#include <benchmark/benchmark.h>

namespace canzona::bench::e2e {

/// Benchmark body; runs on one rank (projections need no communication).
void projected_iteration(benchmark::State& state, const E2ECase& c, const E2EOptions& options);

}  // namespace canzona::bench::e2e
