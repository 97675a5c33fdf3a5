// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one door to COIN-OR CBC: a mixed-integer program built column by column, solved with a
// time cap, and what the solver proved about it.
#pragma once

#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace canzona::plan::detail {

/// An absent row or column limit.
inline constexpr double kNoLimit = std::numeric_limits<double>::max();

/// What CBC found and proved.
struct CbcOutcome {
  bool has_solution = false;       ///< an integer-feasible solution exists (one was found)
  bool proven_infeasible = false;  ///< no integer-feasible solution exists
};

/// min c·x subject to row limits, column limits and integrality, built column by column.
class SparseColumns {
 public:
  explicit SparseColumns(int rows)
      : row_lower_(static_cast<std::size_t>(rows), -kNoLimit),
        row_upper_(static_cast<std::size_t>(rows), kNoLimit) {}

  /// Appends a column: (row, coefficient) entries, bounds, objective coefficient.
  void add_column(std::span<const std::pair<int, double>> entries, double lower, double upper,
                  double objective, bool integer);
  void set_row(int row, double lower, double upper);

  /// Solves with CBC (one thread, silent) for at most `seconds`.
  CbcOutcome solve(double seconds) const;

 private:
  struct Column {
    std::vector<std::pair<int, double>> entries;
    double lower = 0;
    double upper = 0;
    double objective = 0;
    bool integer = false;
  };
  std::vector<Column> columns_;
  std::vector<double> row_lower_;
  std::vector<double> row_upper_;
};

}  // namespace canzona::plan::detail
