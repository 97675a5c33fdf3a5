// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What a publication table says, before it is written in a format: its lines (one configuration
// each), its columns (latencies per metric and strategy, speed-ups with their intervals, the
// plan's and the run's imbalance, communication) and the notes its cells call for. table.cpp
// writes it as Markdown, LaTeX or CSV, so every format states the same numbers.
#pragma once

#include <canzona/harness/table.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace canzona::harness::table_grid {

/// A benchmark of one of the tabled runs.
struct Cell {
  const Run* run = nullptr;
  const Series* series = nullptr;
};

/// One printed line: the configuration it stands for and the benchmark of each column.
struct Line {
  std::vector<std::string> keys;  ///< values of the key columns
  std::map<std::string, Cell> cells;
  std::tuple<std::size_t, std::size_t, int, int, std::size_t> order;
};

/// The lines of one benchmark family.
struct FamilyTable {
  std::string family;
  std::vector<std::string> key_headers;
  std::vector<std::string> columns;  ///< strategies (or optimizers), Canzona first
  std::vector<Line> lines;
};

/// Groups the series of `runs` into one table per family; ConfigError as render_table says.
std::vector<FamilyTable> build_tables(const std::vector<const Run*>& runs,
                                      const TableOptions& options);

/// The optimizer state's bytes: the `state_bytes` counter, or `state_mib` (Kernels) in bytes.
std::optional<double> state_bytes_of(const Series& s);

/// A time a column shows: the benchmark's real time, or one of its counters in ms.
struct Metric {
  std::string counter;  ///< empty: real_time
  std::string name;     ///< in headers: "opt. step", "full step"; empty when it is the only one
};

/// The metrics a family's table shows, the paper's first.
std::vector<Metric> metrics_of(const FamilyTable& table);

/// The repetitions of `metric` (one value for a projection or a file of aggregates).
std::vector<double> metric_samples(const Series& s, const Metric& metric);

/// Baseline over Canzona: the Hodges–Lehmann estimate of the ratio with its 95 % interval
/// where both sides are measured, the ratio of the values where either is projected.
struct Speedup {
  double ratio = 0;
  double lower = 0;
  double upper = 0;
  bool interval = false;     ///< measured on both sides: judged by an interval
  bool bounded = false;      ///< lower/upper are finite (enough repetitions for one)
  bool significant = false;  ///< the interval excludes 1.00×
};

/// The speed-up of `subject` over `baseline` in `metric`, or nullopt where a median is 0.
std::optional<Speedup> speedup_of(const Series& baseline, const Series& subject,
                                  const Metric& metric);

/// One cell of the grid, kept as numbers so each format writes it its own way.
struct GridCell {
  enum class Kind { kMissing, kKey, kLatency, kSpeedup, kNumbers };
  Kind kind = Kind::kMissing;
  std::string text;  ///< kKey: from the run file; kNumbers: digits, '/' and spaces only
  double median_ms = 0;
  double cv = 0;
  std::int64_t repetitions = 0;
  Speedup speedup;
  std::optional<std::size_t> projection;  ///< index of the topology its projection assumes
};

struct GridColumn {
  enum class Role { kKey, kLatency, kSpeedup, kDetail };
  std::string header;                     ///< one line, plain text (Markdown, CSV)
  std::vector<std::string> header_lines;  ///< the same stacked for LaTeX
  Role role = Role::kKey;
  std::string strategy;    ///< kLatency: whose time; kSpeedup: the baseline
  std::size_t metric = 0;  ///< kLatency, kSpeedup: index into Grid::metrics
  bool key() const { return role == Role::kKey; }
  /// LaTeX keeps latencies and speed-ups; the details stay in Markdown and CSV.
  bool in_latex() const { return role != Role::kDetail; }
};

/// A family's table ready to be written, with the facts its notes must explain.
struct Grid {
  std::string family;
  std::string title;
  std::vector<Metric> metrics;
  std::vector<std::string> strategies;  ///< the column axis, Canzona first
  std::vector<GridColumn> columns;
  std::vector<std::vector<GridCell>> rows;
  std::vector<std::string> topologies;  ///< of the projections, in mark order
  std::vector<std::string> metric_notes;
  bool not_significant = false;  ///< some speed-up is marked n.s.
  bool scaled_models = false;    ///< some model is a `~d<k>` scaling
  std::string ranks_note;        ///< what the ranks column counts, when it needs saying
};

Grid make_grid(const FamilyTable& table, const TableOptions& options);

}  // namespace canzona::harness::table_grid
