// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Partition metrics by hand: per-rank cost, imbalance, lower bound, slice elements with padding,
// and the element-wise split of cut entries under the even ZeRO-1 partition.
#include <canzona/core/error.hpp>
#include <canzona/plan/dp_partition.hpp>
#include <canzona/plan/metrics.hpp>

#include "plan_test_support.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace canzona::plan {
namespace {

using testing::case_a;
using testing::make_buffer;
using testing::numel_costs;

TEST(MetricsTest, CaseAStaticByHand) {
  const auto buffer = case_a();
  const auto m = partition_metrics(buffer, static_partition(buffer), numel_costs(buffer), 4);
  EXPECT_EQ(m.rank_cost, (std::vector<double>{96, 40, 72, 64}));
  EXPECT_DOUBLE_EQ(m.imbalance, 96.0 / 68.0);
  EXPECT_DOUBLE_EQ(m.lower_bound, 68);  // max(272 / 4, 64)
  EXPECT_DOUBLE_EQ(m.makespan_over_lower_bound, 96.0 / 68.0);
  EXPECT_EQ(m.rank_slice_elements, (std::vector<std::int64_t>{96, 40, 72, 64}));
  EXPECT_EQ(m.max_slice_elements, 96);
}

TEST(MetricsTest, SlicesCountPaddingAndCostsDoNot) {
  // dp 2, entries of 10 and 100: [0, 10), [64, 164), bucket padded to 256. Both starts lie in
  // rank 0's equal chunk [0, 128), so rank 0 owns [0, 164) and rank 1 only the padding.
  const auto buffer = make_buffer(2, {{10, 100}}, 64, 128);
  ASSERT_EQ(buffer.total, 256);
  const auto plan = static_partition(buffer);
  EXPECT_EQ(plan.buckets[0].pos, (std::vector<std::int64_t>{0, 164, 256}));
  const auto m = partition_metrics(buffer, plan, numel_costs(buffer), 2);
  EXPECT_EQ(m.rank_cost, (std::vector<double>{110, 0}));
  EXPECT_DOUBLE_EQ(m.imbalance, 2.0);
  EXPECT_DOUBLE_EQ(m.lower_bound, 100);  // max(110 / 2, 100)
  EXPECT_DOUBLE_EQ(m.makespan_over_lower_bound, 1.1);
  EXPECT_EQ(m.rank_slice_elements, (std::vector<std::int64_t>{164, 92}));
  EXPECT_EQ(m.max_slice_elements, 164);
}

TEST(MetricsTest, EvenSplitChargesCutEntriesElementWise) {
  // Case A's even split cuts [0, 64) at 36 and [104, 112) at 108; element-wise, every rank
  // steps exactly its 36 + 32 elements.
  const auto buffer = case_a();
  const auto m = partition_metrics(buffer, even_partition(buffer), numel_costs(buffer), 4);
  EXPECT_EQ(m.rank_cost, (std::vector<double>{68, 68, 68, 68}));
  EXPECT_DOUBLE_EQ(m.imbalance, 1.0);
  EXPECT_EQ(m.rank_slice_elements, (std::vector<std::int64_t>{68, 68, 68, 68}));
}

TEST(MetricsTest, ZeroCostsGiveNeutralRatios) {
  const auto buffer = case_a();
  const std::vector<double> zeros(buffer.entries.size(), 0.0);
  const auto m = partition_metrics(buffer, static_partition(buffer), zeros, 4);
  EXPECT_DOUBLE_EQ(m.imbalance, 1.0);
  EXPECT_DOUBLE_EQ(m.lower_bound, 0.0);
  EXPECT_DOUBLE_EQ(m.makespan_over_lower_bound, 1.0);
  EXPECT_DOUBLE_EQ(owner_imbalance(static_partition(buffer), zeros, 4), 1.0);
}

TEST(MetricsTest, MismatchedInputsAreErrors) {
  const auto buffer = case_a();
  const auto plan = static_partition(buffer);
  EXPECT_THROW(partition_metrics(buffer, plan, numel_costs(buffer), 8), Error);
  EXPECT_THROW(partition_metrics(buffer, plan, std::vector<double>{1}, 4), Error);
}

}  // namespace
}  // namespace canzona::plan
