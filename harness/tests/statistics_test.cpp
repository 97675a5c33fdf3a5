// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The gate's statistics against published values: the Mann–Whitney U statistic and two-sided
// p-values of worked examples in the SciPy and R documentation, and the Theil–Sen slope with
// Sen's interval on Sen's own example and on cases worked by hand.
#include <canzona/harness/statistics.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

namespace canzona::harness {
namespace {

TEST(StatisticsTest, MedianMeanAndSampleStddev) {
  const std::vector<double> odd = {3, 1, 2};
  const std::vector<double> even = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(odd), 2.0);
  EXPECT_DOUBLE_EQ(median(even), 2.5);
  EXPECT_DOUBLE_EQ(mean(even), 2.5);
  // Sample variance of 1..4 is 5/3.
  EXPECT_NEAR(sample_stddev(even), 1.2909944487358056, 1e-15);
  EXPECT_DOUBLE_EQ(sample_stddev(std::vector<double>{7.0}), 0.0);
}

// scipy.stats.mannwhitneyu documentation, "Examples" (from Mann & Whitney's textbook case of
// diagnosis ages): U for the males is 17, U for the females 3, exact two-sided p = 0.1111...;
// the normal approximation with continuity correction gives p = 0.11134688653314041.
TEST(StatisticsTest, MannWhitneyMatchesTheScipyDocumentationExample) {
  const std::vector<double> males = {19, 22, 16, 29, 24};
  const std::vector<double> females = {20, 11, 17, 12};
  const MannWhitneyResult r = mann_whitney_u(males, females);
  EXPECT_DOUBLE_EQ(r.u1, 17.0);
  EXPECT_DOUBLE_EQ(r.u2, 3.0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 1.0 / 9.0, 1e-15);

  // The same statistic swapped: the test is symmetric.
  const MannWhitneyResult swapped = mann_whitney_u(females, males);
  EXPECT_DOUBLE_EQ(swapped.u1, 3.0);
  EXPECT_NEAR(swapped.p_value, 1.0 / 9.0, 1e-15);
}

// R, ?wilcox.test, the two-sample example (Hollander & Wolfe 1973, p. 69): W = 35 and the
// one-sided exact p-value 0.1272, so 0.2544 two-sided (the exact value is 2 · 382 / 3003).
TEST(StatisticsTest, MannWhitneyMatchesTheRDocumentationExample) {
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const MannWhitneyResult r = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(r.u1, 35.0);
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p_value, 0.2544, 5e-5);
  EXPECT_NEAR(r.p_value, 2.0 * 382.0 / 3003.0, 1e-12);
}

// Nine values a side (what the gate needs) with ties: average ranks, the tie-corrected
// variance n1 n2 / 12 ((n + 1) − Σ(t³ − t) / (n (n − 1))) with Σ(t³ − t) = 72 here, and the
// continuity correction: z = (62 − 40.5 − 0.5) / σ = 1.86594, p = 2 Φ(−z) = 0.0620505.
TEST(StatisticsTest, MannWhitneyNormalApproximationWithTies) {
  const std::vector<double> x = {10, 11, 12, 12, 13, 14, 15, 15, 16};
  const std::vector<double> y = {12, 13, 13, 14, 16, 17, 18, 18, 19};
  const MannWhitneyResult r = mann_whitney_u(x, y);
  EXPECT_DOUBLE_EQ(r.u1, 19.0);
  EXPECT_DOUBLE_EQ(r.u2, 62.0);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.062050450162191746, 1e-12);
}

TEST(StatisticsTest, MannWhitneyOfIdenticalOrSeparatedSamples) {
  const std::vector<double> same(9, 5.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(same, same).p_value, 1.0);

  std::vector<double> low;
  std::vector<double> high;
  for (int i = 0; i < 9; ++i) {
    low.push_back(100.0 + i);
    high.push_back(200.0 + i);
  }
  const MannWhitneyResult r = mann_whitney_u(low, high);
  EXPECT_DOUBLE_EQ(r.u1, 0.0);
  EXPECT_DOUBLE_EQ(r.u2, 81.0);
  // Complete separation of 9 and 9: z = (81 − 40.5 − 0.5) / sqrt(81 · 19 / 12) = 3.5321.
  EXPECT_NEAR(r.p_value, 4.1229480206e-4, 1e-12);
}

// Samples whose pairwise differences x_i − y_j are all distinct, so the k-th smallest is known:
// x_i = 100 i, y_j = j.
struct SpacedSamples {
  std::vector<double> x, y, sorted_differences;
};

SpacedSamples spaced_samples(int m, int n) {
  SpacedSamples s;
  for (int i = 0; i < m; ++i) s.x.push_back(100.0 * i);
  for (int j = 0; j < n; ++j) s.y.push_back(j);
  for (const double a : s.x) {
    for (const double b : s.y) s.sorted_differences.push_back(a - b);
  }
  std::sort(s.sorted_differences.begin(), s.sorted_differences.end());
  return s;
}

// The published two-sided 5 % critical values of U (Mann & Whitney 1947; every table of the
// test): 17 for 9 + 9 values and 2 for 5 + 5, so the 95 % interval is [D_(w+1), D_(mn−w)].
// With 3 + 3 values no interval reaches 95 % (the smallest two-sided p is 0.1).
TEST(StatisticsTest, ShiftIntervalUsesThePublishedCriticalValues) {
  for (const auto& [m, w] : std::vector<std::pair<int, int>>{{9, 17}, {5, 2}}) {
    const SpacedSamples s = spaced_samples(m, m);
    const ShiftInterval r = hodges_lehmann_shift(s.x, s.y, 0.95);
    ASSERT_TRUE(r.bounded) << m;
    EXPECT_EQ(r.lower, s.sorted_differences[static_cast<std::size_t>(w)]) << m;
    EXPECT_EQ(r.upper, s.sorted_differences[s.sorted_differences.size() - 1 - w]) << m;
  }
  const SpacedSamples small = spaced_samples(3, 3);
  const ShiftInterval r = hodges_lehmann_shift(small.x, small.y, 0.95);
  EXPECT_FALSE(r.bounded);
  EXPECT_TRUE(std::isinf(r.lower) && r.lower < 0);
  EXPECT_TRUE(std::isinf(r.upper) && r.upper > 0);
  EXPECT_EQ(r.estimate, median(small.sorted_differences));
}

// The critical value checked against the null distribution counted by brute force: every way
// of choosing which m of the m + n pooled ranks belong to x, and its U.
TEST(StatisticsTest, ShiftIntervalAgreesWithEnumeratedNullDistribution) {
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{4, 6}, {7, 2}, {3, 8}, {6, 6}}) {
    std::vector<double> u_counts(static_cast<std::size_t>(m * n + 1), 0.0);
    const int pooled = m + n;
    double total = 0;
    for (unsigned mask = 0; mask < (1u << pooled); ++mask) {
      if (std::popcount(mask) != m) continue;
      int u = 0;  // pairs (x above y): for each x rank, the y ranks below it
      int y_below = 0;
      for (int rank = 0; rank < pooled; ++rank) {
        if ((mask >> rank) & 1u) {
          u += y_below;
        } else {
          ++y_below;
        }
      }
      u_counts[static_cast<std::size_t>(u)] += 1;
      total += 1;
    }
    for (const double confidence : {0.8, 0.9, 0.95, 0.99}) {
      const double tail = (1 - confidence) / 2;
      int w = -1;
      double cumulative = 0;
      for (std::size_t k = 0; k < u_counts.size(); ++k) {
        cumulative += u_counts[k] / total;
        if (cumulative > tail * (1 + 1e-12)) break;
        w = static_cast<int>(k);
      }
      const SpacedSamples s = spaced_samples(m, n);
      const ShiftInterval r = hodges_lehmann_shift(s.x, s.y, confidence);
      SCOPED_TRACE(::testing::Message() << m << "+" << n << " at " << confidence);
      ASSERT_EQ(r.bounded, w >= 0);
      if (w < 0) continue;
      EXPECT_EQ(r.lower, s.sorted_differences[static_cast<std::size_t>(w)]);
      EXPECT_EQ(
          r.upper,
          s.sorted_differences[s.sorted_differences.size() - 1 - static_cast<std::size_t>(w)]);
    }
  }
}

// The estimate and the bounds are order statistics of the m·n differences, found without forming
// them: checked against the differences formed one by one, on samples with ties and signs.
TEST(StatisticsTest, ShiftIntervalMatchesTheDifferencesFormedOneByOne) {
  std::mt19937_64 engine(20261128);
  std::uniform_int_distribution<int> size(1, 40);
  std::uniform_int_distribution<int> value(-30, 30);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> x(static_cast<std::size_t>(size(engine)));
    std::vector<double> y(static_cast<std::size_t>(size(engine)));
    for (double& v : x) v = value(engine) * 0.25;  // few distinct values: many ties
    for (double& v : y) v = value(engine) * 0.1;
    std::vector<double> differences;
    for (const double a : x) {
      for (const double b : y) differences.push_back(a - b);
    }
    std::sort(differences.begin(), differences.end());
    const ShiftInterval r = hodges_lehmann_shift(x, y, 0.9);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    EXPECT_EQ(r.estimate, median(differences));
    if (!r.bounded) continue;
    // lower = D_(k) and upper = D_(N-1-k) for one k.
    const auto below = [&](double v) {
      return static_cast<std::size_t>(std::lower_bound(differences.begin(), differences.end(), v) -
                                      differences.begin());
    };
    const auto through = [&](double v) {
      return static_cast<std::size_t>(std::upper_bound(differences.begin(), differences.end(), v) -
                                      differences.begin());
    };
    const std::size_t n = differences.size();
    ASSERT_LT(below(r.lower), through(r.lower)) << "lower is one of the differences";
    ASSERT_LT(below(r.upper), through(r.upper)) << "upper is one of the differences";
    bool symmetric = false;
    for (std::size_t k = below(r.lower); k < through(r.lower); ++k) {
      symmetric = symmetric || (below(r.upper) <= n - 1 - k && n - 1 - k < through(r.upper));
    }
    EXPECT_TRUE(symmetric) << r.lower << " " << r.upper;
  }
}

// Samples far beyond what forming every difference would allow (4e10 pairs) are answered.
TEST(StatisticsTest, ShiftIntervalOfHugeSamplesNeedsNoPairs) {
  std::vector<double> x(200000);
  std::vector<double> y(200000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 10.0 + std::sin(static_cast<double>(i));
    y[i] = std::cos(static_cast<double>(i) * 1.3);
  }
  const ShiftInterval r = hodges_lehmann_shift(x, y, 0.95);
  ASSERT_TRUE(r.bounded);
  EXPECT_NEAR(r.estimate, 10.0, 0.05);
  EXPECT_LT(r.lower, r.estimate);
  EXPECT_GT(r.upper, r.estimate);
}

// Large samples take the normal approximation: a pure shift of 5 is found and the interval
// holds it, narrowly; equal samples give an interval around 0.
TEST(StatisticsTest, ShiftIntervalOfLargeSamplesHoldsTheShift) {
  std::vector<double> y;
  for (int i = 0; i < 80; ++i) y.push_back(std::sin(i * 1.7) * 3.0);
  std::vector<double> x = y;
  for (double& v : x) v += 5.0;
  const ShiftInterval shifted = hodges_lehmann_shift(x, y, 0.95);
  ASSERT_TRUE(shifted.bounded);
  EXPECT_DOUBLE_EQ(shifted.estimate, 5.0);
  EXPECT_LT(shifted.lower, 5.0);
  EXPECT_GT(shifted.upper, 5.0);
  EXPECT_GT(shifted.lower, 4.0);
  EXPECT_LT(shifted.upper, 6.0);
  const ShiftInterval same = hodges_lehmann_shift(y, y, 0.95);
  EXPECT_DOUBLE_EQ(same.estimate, 0.0);
  EXPECT_LT(same.lower, 0.0);
  EXPECT_GT(same.upper, 0.0);
}

// R's documentation of t.test, the paired "sleep" example (Student 1908): the ten differences
// of extra sleep have mean 1.58, t = 4.0621 on 9 degrees of freedom, two-sided p = 0.002833
// and the 95 percent confidence interval [0.7001142, 2.4598858].
const std::vector<double> kSleepDifferences = {1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4};

TEST(StatisticsTest, TIntervalMatchesRsPairedSleepExample) {
  const MeanInterval r = t_interval(kSleepDifferences, 0.95);
  EXPECT_EQ(r.n, 10);
  EXPECT_NEAR(r.mean, 1.58, 1e-12);
  EXPECT_NEAR(r.lower, 0.7001142, 5e-8);
  EXPECT_NEAR(r.upper, 2.4598858, 5e-8);
  EXPECT_NEAR(r.mean / r.standard_error, 4.0621, 5e-5);
}

TEST(StatisticsTest, OneSidedTTestMatchesRsPairedSleepExample) {
  // One-sided: half the two-sided p-value; and the same sample shifted by its mean is at 1/2.
  EXPECT_NEAR(t_test_above(kSleepDifferences, 0.0), 0.002833 / 2, 5e-7);
  EXPECT_NEAR(t_test_above(kSleepDifferences, 1.58), 0.5, 1e-12);
  EXPECT_GT(t_test_above(kSleepDifferences, 3.0), 0.99);
  // No spread: certain either way.
  const std::vector<double> flat = {0.2, 0.2, 0.2};
  EXPECT_EQ(t_test_above(flat, 0.1), 0.0);
  EXPECT_EQ(t_test_above(flat, 0.2), 1.0);
  const MeanInterval i = t_interval(flat, 0.95);
  EXPECT_DOUBLE_EQ(i.lower, 0.2);
  EXPECT_DOUBLE_EQ(i.upper, 0.2);
}

// By hand: sorted 0.005, 0.01, 0.03, 0.04 scale by 4, 3, 2, 1 to 0.02, 0.03, 0.06, 0.04, and the
// last is raised to the running maximum 0.06.
TEST(StatisticsTest, HolmAdjustsInStepDownOrderAndKeepsInputOrder) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> adjusted = holm_adjusted(p);
  ASSERT_EQ(adjusted.size(), 4u);
  EXPECT_NEAR(adjusted[0], 0.03, 1e-15);
  EXPECT_NEAR(adjusted[1], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[2], 0.06, 1e-15);
  EXPECT_NEAR(adjusted[3], 0.02, 1e-15);
  // Capped at 1, and one p-value is its own family.
  EXPECT_EQ(holm_adjusted(std::vector<double>{0.5, 0.6}), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(holm_adjusted(std::vector<double>{0.2}), (std::vector<double>{0.2}));
  EXPECT_TRUE(holm_adjusted(std::vector<double>{}).empty());
}

// Holm's levels on the example above: sorted, 0.005 <= 0.05/4 and 0.01 <= 0.05/3 are rejected;
// 0.03 > 0.05/2 stops the procedure, and 0.03 and 0.04 keep the level that stopped it.
TEST(StatisticsTest, HolmLevelsAreTheStepDownLevelsAndAgreeWithTheAdjustedPValues) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> levels = holm_levels(p, 0.05);
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_DOUBLE_EQ(levels[0], 0.05 / 3);
  EXPECT_DOUBLE_EQ(levels[1], 0.05 / 2);
  EXPECT_DOUBLE_EQ(levels[2], 0.05 / 2);
  EXPECT_DOUBLE_EQ(levels[3], 0.05 / 4);
  EXPECT_TRUE(holm_levels(std::vector<double>{}, 0.05).empty());
  // p_i <= level_i exactly where the adjusted p-value is <= alpha, whatever the p-values.
  std::mt19937_64 engine(20260101);
  std::uniform_real_distribution<double> uniform(0.0, 0.08);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> values(1 + trial % 9);
    for (double& v : values) v = uniform(engine);
    const std::vector<double> adjusted = holm_adjusted(values);
    const std::vector<double> at = holm_levels(values, 0.05);
    for (std::size_t i = 0; i < values.size(); ++i) {
      EXPECT_EQ(values[i] <= at[i], adjusted[i] <= 0.05) << "trial " << trial << ", p " << i;
    }
  }
}

// Sen's (1968) worked example, as scipy.stats.theilslopes tests it: 7 points, the 21 slopes'
// median is 4 and the 93 % interval [3.71, 4.38]. By hand: σ_S² = 7·6·19 / 18, z = 1.8119,
// k = ⌊(21 − 12.06) / 2 + 1/2⌋ = 4, so the 4th and the 18th smallest slopes: 26/7 and 35/8.
TEST(StatisticsTest, TheilSenMatchesSensExample) {
  const std::vector<double> x = {1, 2, 3, 4, 10, 12, 18};
  const std::vector<double> y = {9, 15, 19, 20, 45, 55, 78};
  const SlopeInterval r = theil_sen(x, y, 0.93);
  EXPECT_DOUBLE_EQ(r.estimate, 4.0);
  EXPECT_EQ(r.slopes, 21u);
  EXPECT_NEAR(r.s_stddev, std::sqrt(7.0 * 6 * 19 / 18), 1e-12);
  EXPECT_DOUBLE_EQ(r.lower, 26.0 / 7);
  EXPECT_DOUBLE_EQ(r.upper, 35.0 / 8);
  EXPECT_NEAR(r.lower, 3.71, 0.005);
  EXPECT_NEAR(r.upper, 4.38, 0.006);
  // The order of the points does not matter.
  const std::vector<double> x_reversed(x.rbegin(), x.rend());
  const std::vector<double> y_reversed(y.rbegin(), y.rend());
  const SlopeInterval reversed = theil_sen(x_reversed, y_reversed, 0.93);
  EXPECT_DOUBLE_EQ(reversed.lower, r.lower);
  EXPECT_DOUBLE_EQ(reversed.upper, r.upper);
}

// By hand, five nights 0..4 with values 0, 2, 3, 7, 8: the ten slopes sorted are 1, 1, 1.5, 2, 2,
// 2, 7/3, 2.5, 2.5, 4 (median 2). σ_S² = 5·4·15 / 18 = 50/3. At 95 %, z σ_S = 8.00 and
// k = ⌊(10 − 8.00) / 2 + 1/2⌋ = 1: the extremes [1, 4]. At 90 %, z σ_S = 6.72 and k = 2: [1, 2.5].
// Three points never bound the slope at 95 % (k = 0).
TEST(StatisticsTest, TheilSenIntervalOfSmallSamplesWorkedByHand) {
  const std::vector<double> x = {0, 1, 2, 3, 4};
  const std::vector<double> y = {0, 2, 3, 7, 8};
  const SlopeInterval wide = theil_sen(x, y, 0.95);
  EXPECT_DOUBLE_EQ(wide.estimate, 2.0);
  EXPECT_DOUBLE_EQ(wide.lower, 1.0);
  EXPECT_DOUBLE_EQ(wide.upper, 4.0);
  const SlopeInterval narrow = theil_sen(x, y, 0.90);
  EXPECT_DOUBLE_EQ(narrow.lower, 1.0);
  EXPECT_DOUBLE_EQ(narrow.upper, 2.5);
  // Each end at its own level: the lower at 5 % one-sided (k = 2), the upper at 2.5 % (k = 1).
  const SlopeInterval mixed = theil_sen(x, y, 0.05, 0.025);
  EXPECT_DOUBLE_EQ(mixed.lower, 1.0);
  EXPECT_DOUBLE_EQ(mixed.upper, 4.0);

  const std::vector<double> three = {0, 1, 2};
  const SlopeInterval none = theil_sen(three, std::vector<double>{1, 3, 4}, 0.95);
  EXPECT_DOUBLE_EQ(none.estimate, 1.5);
  EXPECT_TRUE(std::isinf(none.lower) && none.lower < 0);
  EXPECT_TRUE(std::isinf(none.upper) && none.upper > 0);
}

// Ties: a pair with equal x has no slope; tied values shrink σ_S by Sen's tie terms (by hand:
// x 0, 0, 1, 2 has one pair of ties, y 1, 1, 2, 3 another: (4·3·13 − 2·1·9 − 2·1·9) / 18 = 6.67).
// Every y tied: every slope is 0, the interval is [0, 0] and the tests are certain.
TEST(StatisticsTest, TheilSenWithTies) {
  const std::vector<double> x = {0, 0, 1, 2};
  const std::vector<double> y = {1, 1, 2, 3};
  const SlopeInterval r = theil_sen(x, y, 0.95);
  EXPECT_EQ(r.slopes, 5u);
  EXPECT_NEAR(r.s_stddev, std::sqrt((4.0 * 3 * 13 - 18 - 18) / 18), 1e-12);
  EXPECT_DOUBLE_EQ(r.estimate, 1.0);

  const std::vector<double> nights = {0, 1, 2, 3, 4, 5};
  const std::vector<double> flat(6, 2.5);
  const SlopeInterval still = theil_sen(nights, flat, 0.95);
  EXPECT_EQ(still.s_stddev, 0.0);
  EXPECT_EQ(still.estimate, 0.0);
  EXPECT_EQ(still.lower, 0.0);
  EXPECT_EQ(still.upper, 0.0);
  EXPECT_EQ(theil_sen_p_above(nights, flat, -0.01), 0.0);
  EXPECT_EQ(theil_sen_p_above(nights, flat, 0.0), 1.0);
  EXPECT_EQ(theil_sen_p_below(nights, flat, 0.01), 0.0);
  EXPECT_EQ(theil_sen_p_below(nights, flat, 0.0), 1.0);
}

// The one-sided p-values are Kendall's test with its continuity correction, by hand on the
// five points above: bound 0.9 leaves every slope above it, S = 10, p = Φ̄(9 / √(50/3));
// bound 2 has 6 slopes at most 2: p = Φ̄((10 − 12 − 1) / √(50/3)).
TEST(StatisticsTest, TheilSenPValuesWorkedByHand) {
  const std::vector<double> x = {0, 1, 2, 3, 4};
  const std::vector<double> y = {0, 2, 3, 7, 8};
  const double sigma = std::sqrt(50.0 / 3);
  const auto upper_tail = [](double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); };
  EXPECT_NEAR(theil_sen_p_above(x, y, 0.9), upper_tail(9 / sigma), 1e-12);
  EXPECT_NEAR(theil_sen_p_above(x, y, 2.0), upper_tail(-3 / sigma), 1e-12);
  // 4 is the only slope >= 4: p = Φ̄((10 − 2 − 1) / σ).
  EXPECT_NEAR(theil_sen_p_below(x, y, 4.0), upper_tail(7 / sigma), 1e-12);
}

// The tests are the duals of the bounds: p <= a exactly when the bound at level a excludes the
// value, for every level and value (checked on noisy lines with a fixed seed).
TEST(StatisticsTest, TheilSenPValuesAreDualToTheBounds) {
  std::mt19937_64 engine(7);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (const int n : {4, 7, 14, 30}) {
    std::vector<double> x;
    std::vector<double> y;
    for (int i = 0; i < n; ++i) {
      x.push_back(i);
      y.push_back(0.3 * i + noise(engine));
    }
    const SlopeInterval all = theil_sen(x, y, 0.5);
    for (const double tail : {0.001, 0.0125, 0.025, 0.05, 0.1, 0.3}) {
      const SlopeInterval r = theil_sen(x, y, tail, tail);
      for (double bound = all.estimate - 2.0; bound <= all.estimate + 2.0; bound += 0.0137) {
        EXPECT_EQ(theil_sen_p_above(x, y, bound) <= tail, r.lower > bound)
            << "n " << n << ", tail " << tail << ", bound " << bound;
        EXPECT_EQ(theil_sen_p_below(x, y, bound) <= tail, r.upper < bound)
            << "n " << n << ", tail " << tail << ", bound " << bound;
      }
    }
  }
}

TEST(StatisticsTest, BalancedOrderHasAsManyABAsBAAndFollowsTheSeed) {
  for (const int pairs : {0, 1, 2, 7, 20}) {
    const std::vector<bool> order = balanced_order(pairs, 42);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(pairs));
    const auto ab = std::count(order.begin(), order.end(), true);
    EXPECT_LE(std::abs(2 * ab - pairs), 1) << pairs << " pairs";
    EXPECT_EQ(order, balanced_order(pairs, 42)) << "the same seed, another order";
  }
  // Another seed shuffles 20 pairs differently (one of these would be a 1 in 184756 chance each).
  bool differs = false;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    differs = differs || balanced_order(20, seed) != balanced_order(20, 42);
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace canzona::harness
