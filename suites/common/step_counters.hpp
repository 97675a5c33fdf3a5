// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Counters and labels shared by measured and projected rows (results/SCHEMA.md is the contract;
// README.md lists every counter).
#pragma once

#include "case_plan.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace canzona::bench::step {

/// The plan's deterministic counters: `plan_imbalance`, `state_bytes`, `<phase>_bytes`,
/// `comm_bytes`.
void report_plan_facts(benchmark::State& state, const PlanFacts& facts);

/// The row's label, `key=value` fields joined by ';': plan_hash and options (with the name,
/// what rebuilds the plan), then `fields` ("seed=1", "topology=dgx-h100", ...).
std::string row_label(const PlanFacts& facts, const std::vector<std::string>& fields);

/// Milliseconds of seconds.
inline double ms(double seconds) { return seconds * 1e3; }

}  // namespace canzona::bench::step
