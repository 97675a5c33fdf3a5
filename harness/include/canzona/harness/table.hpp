// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Publication tables of a run: the paper's layout (one line per model × GPU count × optimizer,
// one latency column per strategy, Canzona's speed-up over each baseline, imbalance and
// communication) or optimizers side by side; markdown, LaTeX or tidy CSV. Projected cells are
// marked and footnoted with their topology; every table opens with the run's provenance.
#pragma once

#include <canzona/harness/run_series.hpp>

#include <optional>
#include <string>
#include <vector>

namespace canzona::harness {

enum class TableFormat { kMarkdown, kCsv, kLatex };

enum class TableLayout {
  kStrategies,  ///< columns are strategies (the paper's table)
  kOptimizers,  ///< columns are optimizers (--compare-optimizers)
};

struct TableOptions {
  TableFormat format = TableFormat::kMarkdown;
  TableLayout layout = TableLayout::kStrategies;
  std::optional<std::string> baseline;  ///< keep only Canzona and this strategy
  std::vector<std::string> strategies;  ///< keep only these strategies (in this order)
  std::optional<std::string> filter;    ///< ECMAScript regex on the canonical name
};

/// The strategy whose speed-up the table reports.
inline constexpr const char* kSubjectStrategy = "canzona";

/// Renders the tables of `run` (one per benchmark family that has the layout's column axis).
/// Throws ConfigError when no row fits the layout, when --baseline or --strategies names a
/// strategy the run does not have, or for a bad filter.
std::string render_table(const Run& run, const TableOptions& options);

}  // namespace canzona::harness
