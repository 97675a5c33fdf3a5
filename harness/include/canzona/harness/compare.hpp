// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The regression gate: two runs of the same benchmarks, matched by name, judged row by row
// from their repetitions (Mann–Whitney U test with enough of them, a noise-widened threshold
// otherwise) plus an exact comparison of the counters that are deterministic.
#pragma once

#include <canzona/harness/run_series.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

/// What became of one benchmark between the base and the head.
enum class Verdict {
  kSame,     ///< the median moved by no more than the threshold
  kFaster,   ///< faster by more than the threshold, and beyond the noise
  kSlower,   ///< slower by more than the threshold, and beyond the noise (a regression)
  kNoisy,    ///< moved by more than the threshold, but the noise cannot tell it from chance
  kNew,      ///< only in the head (or failed in the base)
  kMissing,  ///< in the base, absent or failed in the head (a regression)
};

/// "SAME", "FASTER", ... as printed.
std::string_view verdict_name(Verdict verdict);

/// True for counters that are a pure function of the benchmark's inputs (plan bytes, state
/// bytes, plan imbalance, layout counts): any change is a change of behaviour, never noise.
/// The list lives in results/SCHEMA.md ("Counters").
bool is_deterministic_counter(const bench::BenchmarkName& name, std::string_view counter);

struct CompareOptions {
  double threshold = 0.05;              ///< relative change of the median that is a change
  double alpha = 0.05;                  ///< significance level of the U test
  std::int64_t utest_repetitions = 9;   ///< U test when both sides have at least this many
  std::optional<std::string> filter;    ///< ECMAScript regex on the canonical name
  bool allow_debug = false;             ///< accept non-Release runs
  bool allow_build_mismatch = false;    ///< accept different build types
  bool allow_device_mismatch = false;   ///< accept different device kinds
  bool allow_backend_mismatch = false;  ///< accept different backends
  bool allow_projected_mix = false;     ///< compare a projected row against a measured one
  bool allow_plan_mismatch = false;     ///< accept different plan hashes for the same name
};

/// A deterministic counter whose value changed.
struct CounterChange {
  std::string counter;
  double base = 0;
  double head = 0;
};

/// The judgement of one benchmark.
struct RowComparison {
  std::string name;  ///< canonical name (`/projected` appended for projected rows)
  Verdict verdict = Verdict::kSame;
  bool base_projected = false;
  bool head_projected = false;
  std::optional<double> base_ms;  ///< median, when the base has the row
  std::optional<double> head_ms;  ///< median, when the head has the row
  double change = 0;              ///< head / base − 1
  std::int64_t base_repetitions = 0;
  std::int64_t head_repetitions = 0;
  double base_cv = 0;
  double head_cv = 0;
  std::string method;             ///< "u-test", "noise" or "" (NEW / MISSING)
  std::optional<double> p_value;  ///< U test only
  double threshold = 0;           ///< the threshold applied (widened by noise for "noise")
  std::vector<CounterChange> behaviour_changes;
  std::string note;  ///< why a row is NEW / MISSING when it failed, or a projected mix
};

/// The whole comparison.
struct Comparison {
  std::string base_source;
  std::string head_source;
  std::map<std::string, std::string> base_context;
  std::map<std::string, std::string> head_context;
  CompareOptions options;
  std::vector<std::string> allowed_differences;  ///< refusals overridden by --allow-...
  std::vector<RowComparison> rows;               ///< base order, then NEW rows

  /// How many rows got each verdict.
  std::map<Verdict, int> counts() const;
  /// Rows with at least one deterministic counter changed.
  int behaviour_changes() const;
  /// Geometric mean of head / base over rows timed on both sides (1 when none).
  double geomean_ratio() const;
  /// Rows timed on both sides (what the geometric mean is over).
  int timed_rows() const;
  /// 1 when a row is SLOWER or MISSING, else 0.
  int exit_code() const;
};

/// Compares two runs. Throws ConfigError when they must not be compared (debug build, different
/// device kinds, build types or backends, projected against measured rows, different plan
/// hashes) unless `options` allows it, saying exactly what differs and which flag allows it;
/// also for a bad filter regex or a filter that matches nothing.
Comparison compare_runs(const Run& base, const Run& head, const CompareOptions& options);

/// The report a pull request can paste: provenance of both runs, a verdict summary, a row table
/// (every row, or only the rows that are not SAME), and the behaviour changes.
std::string comparison_markdown(const Comparison& comparison, bool changes_only);

/// The same as JSON (results/SCHEMA.md, "compare --json").
nlohmann::json comparison_json(const Comparison& comparison);

}  // namespace canzona::harness
