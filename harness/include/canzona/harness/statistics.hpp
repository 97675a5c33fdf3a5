// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The statistics the regression gates and the tables use: medians, relative spread and the
// two-sided Mann–Whitney U test as Google Benchmark's compare.py runs it
// (scipy.stats.mannwhitneyu, method 'auto') for `compare`; the Hodges–Lehmann shift with its
// rank interval for `table`'s speed-ups; Student's t intervals and tests of paired differences,
// Holm's step-down procedure and a balanced random order of pairs for `ab`; the Theil–Sen slope
// with Sen's interval for `drift`. Distributions from Boost.Math.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

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

/// The Hodges–Lehmann estimate of the shift between two samples (the median of the pairwise
/// differences x_i − y_j) with its distribution-free confidence interval from the Mann–Whitney
/// null distribution (Bauer 1972; R's `wilcox.test(x, y, conf.int = TRUE)`): robust to the
/// outliers of timings, deterministic (no resampling), and valid for any continuous
/// distribution of the same shape on both sides.
struct ShiftInterval {
  double estimate = 0;
  double lower = 0;  ///< −∞ when the samples are too small for `confidence`
  double upper = 0;  ///< +∞ likewise
  bool bounded = false;
};

/// Exact null distribution up to 2 500 pairs, the normal approximation above. Requires both
/// samples non-empty and 0 < confidence < 1.
ShiftInterval hodges_lehmann_shift(std::span<const double> x, std::span<const double> y,
                                   double confidence);

/// The mean of a sample with its two-sided Student's t confidence interval.
struct MeanInterval {
  double mean = 0;
  double lower = 0;
  double upper = 0;
  double standard_error = 0;  ///< sample stddev / sqrt(n)
  int n = 0;
};

/// mean ± t_{1 − (1 − confidence)/2, n − 1} · s / √n. Requires at least two values and
/// 0 < confidence < 1. A sample without spread gets an interval of zero width.
MeanInterval t_interval(std::span<const double> values, double confidence);

/// One-sided one-sample t test of "the mean is at most `bound`" against "it is above": the
/// p-value P(T_{n−1} >= (mean − bound) / (s / √n)). A sample without spread gives 0 when its mean
/// is above the bound and 1 otherwise. Requires at least two values.
double t_test_above(std::span<const double> values, double bound);

/// Holm's step-down adjusted p-values (Holm 1979): sorted ascending, the k-th smallest (k from 0)
/// becomes max over j <= k of min(1, (m − j) p_(j)); rejecting where the adjusted value is
/// <= alpha controls the family-wise error at alpha. Returned in the input order.
std::vector<double> holm_adjusted(std::span<const double> p_values);

/// The level Holm's step-down procedure tests each hypothesis at: in ascending order of the
/// p-values (ties in input order), the k-th (from 0) at alpha / (m − k) as long as every earlier
/// one was rejected; from the first that is not, every remaining one at the level that stopped
/// it. So p_i <= level_i exactly when holm_adjusted(p)_i <= alpha, and a confidence bound at
/// level_i agrees with Holm's decision on its hypothesis. Returned in the input order.
std::vector<double> holm_levels(std::span<const double> p_values, double alpha);

/// The Theil–Sen estimate of the slope of y on x — the median of the slopes (y_j − y_i) /
/// (x_j − x_i) over the N pairs with x_i != x_j (Theil 1950; Sen 1968) — with Sen's
/// distribution-free confidence bounds: the order statistics of those slopes at ranks k and
/// N + 1 − k (from 1), k = ⌊(N − z σ_S) / 2 + 1/2⌋, z the normal quantile of the bound's level and
/// σ_S² the variance of Kendall's S under no association, less Sen's tie terms in x and y (his
/// eq. 2.6; the rule of scipy.stats.theilslopes). A median of slopes is robust: one wild point
/// moves few of them, and the bounds hold for any continuous distribution of the errors.
struct SlopeInterval {
  double estimate = 0;
  double lower = 0;        ///< −∞ when k < 1: too few points for the lower bound's level
  double upper = 0;        ///< +∞ likewise
  std::size_t slopes = 0;  ///< N
  double s_stddev = 0;     ///< σ_S
};

/// Each end a one-sided bound with its own error: P(slope < lower) <= lower_tail, P(slope >
/// upper) <= upper_tail (e.g. two families' Holm levels). Requires x and y of one size with two
/// different x, and tails in (0, 1/2].
SlopeInterval theil_sen(std::span<const double> x, std::span<const double> y, double lower_tail,
                        double upper_tail);

/// The two-sided interval at `confidence` (each end at (1 − confidence) / 2). Requires
/// 0 < confidence < 1.
SlopeInterval theil_sen(std::span<const double> x, std::span<const double> y, double confidence);

/// One-sided p-value of "the slope is at most `bound`" against "above": Φ̄((N − 2c − 1) / σ_S)
/// with c the slopes <= bound — Kendall's test of y − bound · x with its continuity correction,
/// and the dual of the lower bound: p <= a exactly when theil_sen's lower end at level a is above
/// `bound`.
double theil_sen_p_above(std::span<const double> x, std::span<const double> y, double bound);

/// The same for "at least `bound`" against "below" (c: the slopes >= bound): p <= a exactly when
/// the upper end at level a is below `bound`.
double theil_sen_p_below(std::span<const double> x, std::span<const double> y, double bound);

/// Which side runs first in each of `pairs` pairs: true = base first (AB), false = BA. AB and BA
/// come equally often (the odd pair, if any, is decided by the seed), in an order shuffled by a
/// std::mt19937_64 seeded with `seed`: the same seed gives the same order on every platform.
std::vector<bool> balanced_order(int pairs, std::uint64_t seed);

}  // namespace canzona::harness
