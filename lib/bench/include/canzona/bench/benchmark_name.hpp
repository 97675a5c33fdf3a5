// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The grammar of benchmark names (results/SCHEMA.md, "Benchmark names"): the suites write names
// with the writers below and compare, table, plot, promote and validate read them with
// parse_benchmark_name, both from one table of families. Names are
// `<Family>/<positional>.../<key>:<value>...`, for example
// `OptimizerStep/muon/canzona/qwen3-8b/gpus:8/dp:4/tp:2/projected/manual_time`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace canzona::bench {

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

/// The name as a suite registers it: the canonical key, `/projected` appended for a projected row.
/// What every filter selects and every report shows.
std::string registered_name(const BenchmarkName& name);

/// The families the suites write, by name, and the shape each name must have.
inline constexpr std::string_view kOptimizerStepFamily = "OptimizerStep";
inline constexpr std::string_view kE2EIterationFamily = "E2EIteration";
inline constexpr std::string_view kPlannerFamily = "Planner";
inline constexpr std::string_view kKernelsFamily = "Kernels";
inline constexpr std::string_view kProjectorFamily = "Projector";
inline constexpr std::string_view kPlanQualityFamily = "PlanQuality";
/// Every family above, with the pattern its names follow (for documentation and errors).
std::vector<std::pair<std::string_view, std::string_view>> benchmark_families();

/// Writes the name of `parts` (family, positional, params, projected; the other fields are
/// ignored) and checks it against the family's shape by parsing it back: ConfigError for a
/// token that is empty or holds '/' or ':' where it must not, or a name its family does not
/// accept. What a writer below produces, the parser reads back to the same parts.
std::string format_benchmark_name(const BenchmarkName& parts);

/// What a distributed row measures: one optimizer and strategy on one model at (dp, tp).
struct DistributedCase {
  std::string optimizer;
  std::string strategy;
  std::string model;
  int dp = 1;
  int tp = 1;
  bool projected = false;  ///< costed by the projector instead of run on the job's ranks
  int gpus() const { return dp * tp; }
};
/// `OptimizerStep/<optimizer>/<strategy>/<model>/gpus:<dp*tp>/dp:<dp>/tp:<tp>[/projected]`.
std::string optimizer_step_name(const DistributedCase& c);
/// `E2EIteration/.../tp:<tp>/seq:<seq>/mbs:<mbs>[/projected]`.
std::string e2e_iteration_name(const DistributedCase& c, int seq, int mbs);
/// `Planner/[<optimizer>/]<strategy>/<model>/gpus:/dp:/tp:` (no optimizer: the layout rows).
std::string planner_name(const DistributedCase& c);
/// `Projector/<optimizer>/<model>/gpus:/dp:/tp:`: the cost of projecting every strategy's step
/// (lib/sim) once; no strategy axis, since one row covers them all.
std::string projector_name(std::string_view optimizer, std::string_view model, int dp, int tp);
/// `PlanQuality/<optimizer>/<model>/gpus:/dp:/tp:/cost:<cost>`: the DP planners' busiest rank
/// against the proven optimum of the contiguous partition (plan::optimal_partition) on `cost`.
std::string plan_quality_name(std::string_view optimizer, std::string_view model, int dp, int tp,
                              std::string_view cost);
/// `Kernels/<optimizer>/<backend>/shape:<rows>x<cols>`.
std::string kernels_name(std::string_view optimizer, std::string_view backend, std::int64_t rows,
                         std::int64_t cols);

}  // namespace canzona::bench
