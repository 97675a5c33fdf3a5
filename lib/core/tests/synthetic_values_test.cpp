// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/core/synthetic_values.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace canzona {
namespace {

TEST(SyntheticValuesTest, SameValuesWhateverTheThreadsAndTheOffset) {
  std::vector<float> one(3'000'001), many(one.size()), tail(1000);
  fill_synthetic_normal(one, 42, 0.02f, 0, 1);
  fill_synthetic_normal(many, 42, 0.02f, 0, 7);
  fill_synthetic_normal(tail, 42, 0.02f, one.size() - tail.size());
  EXPECT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float)));
  EXPECT_EQ(0, std::memcmp(one.data() + one.size() - tail.size(), tail.data(),
                           tail.size() * sizeof(float)));
  EXPECT_EQ(one[12345], synthetic_normal(42, 12345, 0.02f));
}

TEST(SyntheticValuesTest, MomentsOfANormalAndDistinctStreams) {
  constexpr std::size_t kN = 1 << 20;
  std::vector<float> a(kN), b(kN);
  fill_synthetic_normal(a, synthetic_key(7, 0, 1), 2.0f);
  fill_synthetic_normal(b, synthetic_key(7, 1, 1), 2.0f);
  double sum = 0, sum_sq = 0, sum_4 = 0, cross = 0;
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < kN; ++i) {
    const double x = a[i] / 2.0;
    sum += x;
    sum_sq += x * x;
    sum_4 += x * x * x * x;
    cross += x * (b[i] / 2.0);
    zeros += a[i] == 0.0f ? 1 : 0;
  }
  // Standard errors with 2^20 samples: mean 1e-3, variance 1.4e-3, kurtosis ~5e-3; 5 sigma.
  EXPECT_NEAR(sum / kN, 0.0, 5e-3);
  EXPECT_NEAR(sum_sq / kN, 1.0, 7e-3);
  EXPECT_NEAR(sum_4 / kN, 3.0, 5e-2);  // a normal's fourth moment
  EXPECT_NEAR(cross / kN, 0.0, 5e-3);  // two keys: uncorrelated streams
  EXPECT_EQ(zeros, 0U);
  EXPECT_NE(synthetic_key(7, 0, 1), synthetic_key(7, 1, 0));
}

}  // namespace
}  // namespace canzona
