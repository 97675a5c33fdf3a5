// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What `canzona-bench run` makes of the suites' output: one Google Benchmark JSON document with
// the run's provenance in its context, and a short summary table.
#pragma once

#include <canzona/harness/run_series.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace canzona::harness {

/// Merges suite outputs: the first document's context (the suites record the build, devices and
/// MPI library) plus `provenance` (string values), and every document's benchmarks in order.
/// ConfigError when there is no document or one lacks `context` / `benchmarks`.
nlohmann::json merge_runs(const std::vector<nlohmann::json>& documents,
                          const std::map<std::string, std::string>& provenance);

/// One line per case: the median step over repetitions, its coefficient of variation, the
/// measured (or projected) imbalance and, for measured rows, the projector's step for the same
/// job and its error; projected rows marked with a dagger and a footnote naming the topology.
/// What `table` does not show; for a reader, not a parser (`table` is the publishing tool).
std::string format_run_summary(const Run& run);

}  // namespace canzona::harness
