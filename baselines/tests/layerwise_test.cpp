// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Layer-wise assignments on hand examples (ping-pong, round-robin, LPT with a known optimum) and
// their metrics by hand.
#include <canzona/baselines/layerwise.hpp>
#include <canzona/core/error.hpp>
#include <canzona/plan/metrics.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace canzona::baselines {
namespace {

std::vector<double> as_costs(const std::vector<std::int64_t>& numels) {
  return {numels.begin(), numels.end()};
}

TEST(LayerwiseTest, PingPongDealsAscendingNumelsBackAndForth) {
  // Sorted order is the input order; deal 0,1,2,3,3,2,1,0,0.
  const std::vector<std::int64_t> numels = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto owner =
      layerwise_assignment(numels, as_costs(numels), 4, LayerwiseMode::kPingPongNumel);
  EXPECT_EQ(owner, (std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0, 0}));

  // Loads 18, 9, 9, 9: mean 11.25, imbalance 1.6; lower bound max(45/4, 9) = 11.25.
  const auto m = plan::assignment_metrics(owner, as_costs(numels), 4);
  EXPECT_EQ(m.rank_cost, (std::vector<double>{18, 9, 9, 9}));
  EXPECT_DOUBLE_EQ(m.imbalance, 1.6);
  EXPECT_DOUBLE_EQ(m.lower_bound, 11.25);
  EXPECT_DOUBLE_EQ(m.makespan_over_lower_bound, 1.6);
  EXPECT_TRUE(m.rank_slice_elements.empty());
}

TEST(LayerwiseTest, PingPongSortsByNumelAndKeepsTiesInInputOrder) {
  // Sorted (stable): idx 1 (1), 3 (2), 0 (5), 4 (5), 2 (9) → ranks 0, 1, 1, 0, 0.
  const std::vector<std::int64_t> numels = {5, 1, 9, 2, 5};
  const std::vector<double> costs = {100, 0, 0, 0, 0};  // ignored by ping-pong
  EXPECT_EQ(layerwise_assignment(numels, costs, 2, LayerwiseMode::kPingPongNumel),
            (std::vector<int>{1, 0, 0, 1, 0}));
}

TEST(LayerwiseTest, RoundRobinFollowsModelOrder) {
  const std::vector<std::int64_t> numels = {9, 1, 9, 1, 9, 1, 9};
  EXPECT_EQ(layerwise_assignment(numels, as_costs(numels), 3, LayerwiseMode::kRoundRobin),
            (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(LayerwiseTest, LptReachesTheKnownOptimum) {
  // Costs 3 1 4 1 5 9 2 6 on 3 ranks: total 31, so any plan has a makespan >= 11. LPT: 9→0,
  // 6→1, 5→2, 4→2, 3→1, 2→0 (all at 9, lowest rank), 1 (idx 1)→1, 1 (idx 3)→2: loads 11, 10, 10.
  const std::vector<double> costs = {3, 1, 4, 1, 5, 9, 2, 6};
  const std::vector<std::int64_t> numels(costs.size(), 1);
  const auto owner = layerwise_assignment(numels, costs, 3, LayerwiseMode::kLpt);
  EXPECT_EQ(owner, (std::vector<int>{1, 1, 2, 2, 2, 0, 0, 1}));
  const auto m = plan::assignment_metrics(owner, costs, 3);
  EXPECT_EQ(m.rank_cost, (std::vector<double>{11, 10, 10}));
  EXPECT_DOUBLE_EQ(m.imbalance, 11.0 / (31.0 / 3.0));
  EXPECT_DOUBLE_EQ(m.lower_bound, 31.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.makespan_over_lower_bound, 11.0 / (31.0 / 3.0));
}

TEST(LayerwiseTest, LptBreaksTiesByIndexAndRank) {
  // Equal costs: items in index order go to ranks 0, 1, 0, 1 (least loaded, lower rank first).
  const std::vector<double> costs = {2, 2, 2, 2};
  const std::vector<std::int64_t> numels = {4, 3, 2, 1};
  EXPECT_EQ(layerwise_assignment(numels, costs, 2, LayerwiseMode::kLpt),
            (std::vector<int>{0, 1, 0, 1}));
}

TEST(LayerwiseTest, LowerBoundIsTheLargestItemWhenItDominates) {
  const std::vector<int> owner = {0, 1, 1};
  const std::vector<double> costs = {10, 1, 1};
  const auto m = plan::assignment_metrics(owner, costs, 2);
  EXPECT_DOUBLE_EQ(m.lower_bound, 10);
  EXPECT_DOUBLE_EQ(m.makespan_over_lower_bound, 1);
  EXPECT_DOUBLE_EQ(m.imbalance, 10.0 / 6.0);
}

TEST(LayerwiseTest, EveryModeCoversEveryItemWithAValidRank) {
  std::vector<std::int64_t> numels;
  for (int i = 0; i < 37; ++i) {
    numels.push_back((i * 7919) % 101 + 1);
  }
  for (const auto mode :
       {LayerwiseMode::kPingPongNumel, LayerwiseMode::kRoundRobin, LayerwiseMode::kLpt}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    for (int ranks : {1, 2, 5, 37, 64}) {
      const auto owner = layerwise_assignment(numels, as_costs(numels), ranks, mode);
      ASSERT_EQ(owner.size(), numels.size());
      for (int r : owner) {
        EXPECT_GE(r, 0);
        EXPECT_LT(r, ranks);
      }
    }
  }
}

TEST(LayerwiseTest, ModeNamesRoundTripAndBadInputIsAConfigError) {
  for (const auto mode :
       {LayerwiseMode::kPingPongNumel, LayerwiseMode::kRoundRobin, LayerwiseMode::kLpt}) {
    EXPECT_EQ(parse_layerwise_mode(to_string(mode)), mode);
  }
  EXPECT_EQ(parse_layerwise_mode("PingPong"), LayerwiseMode::kPingPongNumel);
  try {
    parse_layerwise_mode("zigzag");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("pingpong, roundrobin, lpt"), std::string::npos);
  }
  const std::vector<std::int64_t> numels = {1, 2};
  const std::vector<double> one_cost = {1};
  EXPECT_THROW(layerwise_assignment(numels, one_cost, 2, LayerwiseMode::kLpt), ConfigError);
  EXPECT_THROW(layerwise_assignment(numels, as_costs(numels), 0, LayerwiseMode::kLpt), ConfigError);
  const std::vector<int> bad_owner = {0, 2};
  EXPECT_THROW(plan::assignment_metrics(bad_owner, as_costs(numels), 2), ConfigError);
}

}  // namespace
}  // namespace canzona::baselines
