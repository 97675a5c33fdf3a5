// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The statistics the regression gate uses: medians, relative spread and the two-sided
// Mann–Whitney U test as Google Benchmark's compare.py runs it (scipy.stats.mannwhitneyu,
// method 'auto'), with the normal distribution from Boost.Math.
#pragma once

#include <span>

namespace canzona::harness {

/// Median of `values` (mean of the two middle values for an even count). Requires values.
double median(std::span<const double> values);

/// Arithmetic mean. Requires values.
double mean(std::span<const double> values);

/// Sample standard deviation (n − 1); 0 for fewer than two values.
double sample_stddev(std::span<const double> values);

/// Two-sided Mann–Whitney U test of "x and y come from the same distribution".
struct MannWhitneyResult {
  double u1 = 0;       ///< U of x: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2
  double u2 = 0;       ///< U of y = n_x n_y − u1
  double p_value = 1;  ///< two-sided
  bool exact = false;  ///< exact null distribution (small samples without ties) or normal
};

/// Ranks ties by their average rank. The p-value is exact when the smaller sample has at most
/// 8 values and there are no ties; otherwise it is the normal approximation with the tie
/// correction of the variance and a continuity correction of 1/2 — scipy's rules, so results
/// equal compare.py's. Requires both samples non-empty.
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y);

}  // namespace canzona::harness
