// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Publication tables of runs: the paper's layout (one line per model × GPU count × optimizer,
// one latency column per metric and strategy, Canzona's speed-up over each baseline with its
// 95 % interval, imbalance and communication) or optimizers side by side; Markdown, LaTeX
// (booktabs, one float per model, notes and provenance under it), an HTML fragment or tidy
// CSV. Projected cells
// are marked and footnoted with their topology; every table opens with the runs' provenance.
#pragma once

#include <canzona/harness/run_series.hpp>

#include <optional>
#include <string>
#include <vector>

namespace canzona::harness {

enum class TableFormat { kMarkdown, kCsv, kLatex, kHtml };

enum class TableLayout {
  kStrategies,  ///< columns are strategies (the paper's table)
  kOptimizers,  ///< columns are optimizers (--compare-optimizers)
};

struct TableOptions {
  TableFormat format = TableFormat::kMarkdown;
  TableLayout layout = TableLayout::kStrategies;
  std::optional<std::string> baseline;  ///< keep only Canzona and this strategy
  std::vector<std::string> strategies;  ///< keep only these strategies (in this order)
  std::optional<std::string> filter;    ///< RE2 pattern on the registered name
  /// Markdown and HTML open with the runs' provenance (a report states it once itself and
  /// turns this off); LaTeX and CSV files always carry it.
  bool provenance = true;
};

/// The strategy whose speed-up the table reports.
inline constexpr const char* kSubjectStrategy = "canzona";

/// Renders the tables of `runs` merged (one per benchmark family that has the layout's column
/// axis). Throws ConfigError when no row fits the layout, when --baseline or --strategies names
/// a strategy the runs do not have, when two runs hold the same benchmark, or for a bad filter.
std::string render_table(const std::vector<Run>& runs, const TableOptions& options);

/// The tables of one run.
std::string render_table(const Run& run, const TableOptions& options);

}  // namespace canzona::harness
