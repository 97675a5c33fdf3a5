// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The gate's statistics against published values: the Mann–Whitney U statistic and two-sided
// p-values of worked examples in the SciPy and R documentation.
#include <canzona/harness/statistics.hpp>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace canzona::harness
