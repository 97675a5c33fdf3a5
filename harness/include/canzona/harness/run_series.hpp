// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A run file seen as what was measured: one Series per benchmark (its repetitions gathered, its
// name parsed, its label fields split), in file order. compare, table, plot and promote all read
// runs through this, so they agree on what a row is.
#pragma once

#include <canzona/bench/benchmark_name.hpp>
#include <canzona/bench/gbench_json.hpp>
#include <canzona/bench/name_pattern.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

/// One benchmark of a run: every repetition of it, or its aggregates when the file has only
/// those (`--benchmark_report_aggregates_only`).
struct Series {
  bench::BenchmarkName name;
  std::string run_name;  ///< the name as the suite wrote it (`run_name`), what filters select
  std::vector<double> samples_ms;             ///< real_time of each repetition, in file order
  std::optional<double> aggregate_median_ms;  ///< from a `_median` row when there are no samples
  std::optional<double> aggregate_cv;         ///< from a `_cv` row when there are no samples
  std::int64_t aggregate_repetitions = 0;
  std::map<std::string, double> counters;  ///< median over repetitions of each user counter
  /// Each user counter's value in every repetition, in file order (empty for a file of
  /// aggregates): what an interval on a counter needs.
  std::map<std::string, std::vector<double>> counter_samples;
  std::string label;                                ///< the label as written
  std::map<std::string, std::string> label_fields;  ///< `key=value` fields of the label
  std::optional<std::string> error;                 ///< the first failure message of any repetition

  /// Median of the repetitions (or the `_median` aggregate); 0 for a failed series.
  double median_ms() const;
  /// Relative standard deviation over the repetitions (sample stddev / mean); 0 with one.
  double cv() const;
  /// Repetitions the centre is based on.
  std::int64_t repetitions() const;
  /// Projected rows: the name says `/projected` or the `projected` counter is 1.
  bool projected() const;
  /// A counter's value, or nullopt.
  std::optional<double> counter(const std::string& key) const;
};

/// A parsed run file.
struct Run {
  std::string source;                          ///< path as given, for messages
  std::map<std::string, std::string> context;  ///< string context keys
  std::vector<Series> series;                  ///< in order of first appearance

  /// A context value or `fallback`.
  std::string context_or(const std::string& key, const std::string& fallback) const;
  /// The series whose canonical key (and projected-ness) match, or nullptr.
  const Series* find(const std::string& key, bool projected) const;
};

/// Groups the rows of a benchmark file into series. Throws ConfigError for a name that does not
/// parse (results/SCHEMA.md) or a file without benchmarks.
Run make_run(const bench::BenchmarkFile& file, const std::string& source);

/// bench::read_gbench_json + make_run.
Run read_run(const std::filesystem::path& path);

/// The runs of a history folder (every `*.json` file directly in it; other files and folders
/// are not runs), oldest first: by their context `date` (ISO 8601, so in order as text), then by
/// file name. What `plot --history` and `drift` read. Throws ConfigError naming `flag` when
/// `folder` is missing or not a folder, and naming the file (and how to get it out of the way)
/// for a file that is not a run.
std::vector<Run> read_history(const std::filesystem::path& folder, std::string_view flag);

/// Splits a label of `key=value` fields separated by ';' (results/SCHEMA.md). A label without
/// '=' is free text and yields no fields.
std::map<std::string, std::string> parse_label_fields(const std::string& label);

/// True for the build types benchmark numbers may come from (Release, RelWithDebInfo).
bool is_release_build(const std::string& build_type);

/// Checks that a file was written by a canzona suite or `canzona-bench run`: the context has the
/// provenance keys of results/SCHEMA.md, and (unless `allow_debug`) a Release build. Throws
/// ConfigError naming the file, the missing key or the build type, and the flag that allows it.
void require_canzona_provenance(const std::map<std::string, std::string>& context,
                                const std::string& source, bool allow_debug);

/// Where a run comes from, in lines a table, figure or report opens with: file, git sha, build,
/// backend, device, ranks, preset, date, host and the command that made it.
std::vector<std::string> provenance_lines(const Run& run);

/// The `--filter` of compare, table and plot: a pattern (bench::NamePattern: RE2, linear time)
/// searched in benchmark names as the suites register them (`/projected` included); nullopt for
/// an empty pattern. Throws ConfigError for a pattern that does not compile.
std::optional<bench::NamePattern> name_filter(const std::string& pattern);

/// The topology a projected series assumes: its label's `topology`, else the run's context
/// `topology`, else "".
std::string projection_topology(const Run& run, const Series& series);

}  // namespace canzona::harness
