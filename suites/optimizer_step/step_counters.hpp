// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Counters and labels shared by measured and projected rows (README.md lists every counter).
#pragma once

#include "step_adapter.hpp"

#include <benchmark/benchmark.h>

#include <string>

namespace canzona::bench::step {

/// The plan's deterministic counters: `imbalance`, `max_state_bytes`, `<phase>_bytes`.
void report_plan_facts(benchmark::State& state, const PlanFacts& facts);

/// "plan_hash=<16 hex> options=<dp=...,tp=...,...>": with the name, what rebuilds the plan. Rows
/// add what else reproduces them (seed and backend; topology and compute source).
std::string plan_label(const PlanFacts& facts);

/// Milliseconds of seconds.
inline double ms(double seconds) { return seconds * 1e3; }

}  // namespace canzona::bench::step
