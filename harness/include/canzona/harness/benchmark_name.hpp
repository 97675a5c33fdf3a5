// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one parser of benchmark names (results/SCHEMA.md, "Benchmark names"), shared by compare,
// table, plot, promote and validate. Names are `<Family>/<positional>.../<key>:<value>...`, for
// example `OptimizerStep/muon/canzona/qwen3-8b/gpus:8/dp:4/tp:2/projected/manual_time`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace canzona::harness {

/// A benchmark name taken apart. Google Benchmark's own suffixes (`manual_time`, `repeats:N`,
/// ...) are dropped: they say how a row was measured, not what was measured.
struct BenchmarkName {
  std::string key;     ///< canonical name: no measurement suffixes, no `/projected`
  std::string family;  ///< CamelCase first token (`OptimizerStep`, `Planner`, `Kernels`)
  std::vector<std::string> positional;                      ///< tokens without ':' after family
  std::vector<std::pair<std::string, std::string>> params;  ///< `key:value` tokens, in order
  bool projected = false;  ///< the name ends in `/projected` (before measurement suffixes)

  // The family's positional tokens by meaning ("" when the family has no such token).
  std::string optimizer;
  std::string strategy;
  std::string model;
  std::string backend;  ///< Kernels: the backend the kernel ran on

  // Integer parameters every distributed family carries.
  std::optional<int> gpus;
  std::optional<int> dp;
  std::optional<int> tp;

  /// The value of parameter `name`, or nullptr.
  const std::string* param(std::string_view name) const;
};

/// Parses a benchmark name. Throws ConfigError naming the token that is wrong and the expected
/// shape of the family (e.g. an `OptimizerStep` name without `dp:`), or an integer parameter
/// that is not a positive integer, or gpus that is not dp × tp.
BenchmarkName parse_benchmark_name(std::string_view name);

}  // namespace canzona::harness
