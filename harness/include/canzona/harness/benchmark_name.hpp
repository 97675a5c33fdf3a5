// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Benchmark names of the suites, as Google Benchmark writes them into JSON:
//   <Family>/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>[/projected]
// followed by Google Benchmark's own "/manual_time" (manually timed rows) and, for aggregates,
// "_mean", "_median", "_stddev" or "_cv".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace canzona::harness {

/// The parts of an optimizer-step style name.
struct BenchmarkName {
  std::string family;  ///< "OptimizerStep"
  std::string optimizer;
  std::string strategy;
  std::string model;
  int gpus = 0;
  int dp = 0;
  int tp = 0;
  bool projected = false;
  std::string aggregate;  ///< "mean", "median", "stddev", "cv", or "" for an iteration row
  /// The name without Google Benchmark's suffixes: the key that identifies a case across runs.
  std::string base;
};

/// The parts of `name`, or nullopt when it does not follow the pattern above (gpus must equal
/// dp·tp).
std::optional<BenchmarkName> parse_benchmark_name(std::string_view name);

}  // namespace canzona::harness
