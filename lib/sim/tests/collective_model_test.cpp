// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The alpha-beta model against hand-worked values: placement of Megatron DP / TP groups, bus
// factors, NVLink vs NIC bandwidth, ring / tree / PAT latency.
#include <canzona/core/error.hpp>
#include <canzona/sim/collective_model.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cmath>

#include <random>
#include <vector>

namespace canzona::sim {
namespace {

// Global ranks of the DP group of tp_rank t and of the TP group of dp_rank d (Megatron order).
std::vector<int> dp_group(int dp, int tp, int t) {
  std::vector<int> r;
  for (int d = 0; d < dp; ++d) r.push_back(d * tp + t);
  return r;
}
std::vector<int> tp_group(int tp, int d) {
  std::vector<int> r;
  for (int t = 0; t < tp; ++t) r.push_back(d * tp + t);
  return r;
}

class CollectiveModelTest : public ::testing::Test {
 protected:
  void SetUp() override { rng_.seed(canzona::testing::test_seed()); }
  double random_bytes() { return std::uniform_real_distribution<double>(1e3, 1e10)(rng_); }
  std::mt19937_64 rng_;
  Topology h100_ = topology_preset("dgx-h100");
};

TEST_F(CollectiveModelTest, MegatronGroupsPlaceTpInsideANodeAndDpAcrossNodes) {
  const GroupPlacement tp = place_group(tp_group(8, 5), 8);
  EXPECT_EQ(tp.nodes, 1);
  EXPECT_EQ(tp.min_ranks_per_node, 8);
  const GroupPlacement dp8 = place_group(dp_group(32, 8, 3), 8);  // 256 GPUs, dp32 x tp8
  EXPECT_EQ(dp8.size, 32);
  EXPECT_EQ(dp8.nodes, 32);
  EXPECT_EQ(dp8.max_ranks_per_node, 1);
  const GroupPlacement dp4 = place_group(dp_group(64, 4, 0), 8);  // dp64 x tp4: 2 per node
  EXPECT_EQ(dp4.nodes, 32);
  EXPECT_EQ(dp4.min_ranks_per_node, 2);
  EXPECT_THROW(place_group(std::vector<int>{}, 8), ConfigError);
}

TEST_F(CollectiveModelTest, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveClass::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveClass::kReduceScatter, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveClass::kAllGather, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveClass::kAllToAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveClass::kBroadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveClass::kAllReduce, 1), 0.0);
}

TEST_F(CollectiveModelTest, IntraNodeRingByHand) {
  const double bytes = random_bytes();
  const GroupPlacement p = place_group(tp_group(8, 0), 8);
  const CollectiveEstimate rs =
      estimate_collective(h100_, CollectiveClass::kReduceScatter, bytes, p);
  EXPECT_EQ(rs.algorithm, "ring");
  EXPECT_DOUBLE_EQ(rs.latency_seconds, (8.0 + 7 * 0.6) * 1e-6);
  EXPECT_DOUBLE_EQ(rs.busbw_gbps, 370.0);
  EXPECT_NEAR(rs.seconds, rs.latency_seconds + bytes / 370e9, 1e-12 * rs.seconds);
  // NVLS all-reduce inside a node.
  const CollectiveEstimate ar = estimate_collective(h100_, CollectiveClass::kAllReduce, bytes, p);
  EXPECT_DOUBLE_EQ(ar.busbw_gbps, 480.0);
  EXPECT_DOUBLE_EQ(ar.latency_seconds, (8.0 + 14 * 0.6) * 1e-6);
}

TEST_F(CollectiveModelTest, GroupsAcrossNodesRunAtTheirNicsCappedByNvlink) {
  const double bytes = random_bytes();
  // One rank per node: one NIC each at the preset's per-NIC rate for 32 nodes (published runs:
  // 45.7 GB/s at 4 nodes, 43.75 at 248, interpolated in log2(nodes)), PAT latency
  // (log2 32 = 5 inter-node steps) beats the ring.
  const GroupPlacement one = place_group(dp_group(32, 8, 0), 8);
  const CollectiveEstimate ag = estimate_collective(h100_, CollectiveClass::kAllGather, bytes, one);
  const double nic32 = 45.7 - 1.95 * 3.0 / (std::log2(248.0) - 2.0);
  EXPECT_NEAR(ag.busbw_gbps, nic32, 1e-9);
  EXPECT_EQ(ag.algorithm, "pat");
  EXPECT_DOUBLE_EQ(ag.latency_seconds, (8.0 + 5 * 5.0) * 1e-6);
  // Two ranks per node over 32 nodes: two NICs.
  const GroupPlacement two = place_group(dp_group(64, 4, 1), 8);
  EXPECT_NEAR(estimate_collective(h100_, CollectiveClass::kReduceScatter, bytes, two).busbw_gbps,
              2 * nic32, 1e-9);
  // Whole nodes (4 of them): 8 NICs at 45.7 = 365.6 GB/s, below the NVLink ring rate (370);
  // never NVLS's 480, which needs the group inside one node.
  const GroupPlacement full = place_group(dp_group(32, 1, 0), 8);
  const CollectiveEstimate ar =
      estimate_collective(h100_, CollectiveClass::kAllReduce, bytes, full);
  EXPECT_NEAR(ar.busbw_gbps, 8 * 45.7, 1e-9);
  // Without the node-count table, 8 × 48 = 384 is capped by NVLink's 370.
  Topology flat = h100_;
  flat.inter_node.busbw_by_nodes.clear();
  EXPECT_DOUBLE_EQ(estimate_collective(flat, CollectiveClass::kAllReduce, bytes, full).busbw_gbps,
                   370.0);
  EXPECT_DOUBLE_EQ(estimate_collective(flat, CollectiveClass::kAllGather, bytes, one).busbw_gbps,
                   48.0);
  // Tree latency: 2·(7 intra + log2(4) = 2 inter) steps beat the ring's 2·31 steps.
  EXPECT_EQ(ar.algorithm, "tree");
  EXPECT_DOUBLE_EQ(ar.latency_seconds, (8.0 + 2 * (7 * 0.6 + 2 * 5.0)) * 1e-6);
}

TEST_F(CollectiveModelTest, AllToAllAcrossNodesIsBoundByTheSlowerShare) {
  const double bytes = random_bytes();
  // 16 ranks, 8 per node: 7 of 15 peers on-node over NVLink, 8 of 15 over the one NIC.
  const GroupPlacement p = place_group(dp_group(16, 1, 0), 8);
  const CollectiveEstimate e = estimate_collective(h100_, CollectiveClass::kAllToAll, bytes, p);
  const double expected = std::max(bytes * 7 / 15 / 370e9, bytes * 8 / 15 / 48e9);
  EXPECT_NEAR(e.seconds - e.latency_seconds, expected, 1e-12 * expected);
}

TEST_F(CollectiveModelTest, AGroupOfOneIsFreeAndTimeGrowsWithBytes) {
  EXPECT_DOUBLE_EQ(estimate_collective(h100_, CollectiveClass::kAllReduce, 1e9,
                                       place_group(std::vector<int>{3}, 8))
                       .seconds,
                   0.0);
  const GroupPlacement p = place_group(dp_group(8, 8, 2), 8);
  const double small = random_bytes();
  for (int i = 0; i < kCollectiveClasses; ++i) {
    const auto kind = static_cast<CollectiveClass>(i);
    EXPECT_LT(estimate_collective(h100_, kind, small, p).seconds,
              estimate_collective(h100_, kind, 2 * small, p).seconds);
  }
}

TEST_F(CollectiveModelTest, PlanOpNamesMapToClasses) {
  EXPECT_EQ(collective_class_of("gather"), CollectiveClass::kAllToAll);
  EXPECT_EQ(collective_class_of("scatter"), CollectiveClass::kAllToAll);
  EXPECT_EQ(collective_class_of("reduce"), CollectiveClass::kBroadcast);
  EXPECT_THROW(collective_class_of("barrier"), ConfigError);
}

}  // namespace
}  // namespace canzona::sim
