// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The remembered DP partitions: only inside a scope, an answer comes back only for inputs equal
// in every field the planner reads, and what alpha_balanced_partition returns from memory equals
// what it planned.
#include "../src/partition_memo.hpp"

#include <canzona/plan/dp_partition.hpp>
#include <canzona/plan/partition_memo.hpp>

#include "plan_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace canzona::plan {
namespace {

using testing::case_a;
using testing::numel_costs;

// A stand-in answer that says which call produced it.
std::function<DpPartition()> planner_named(const std::string& name, int& calls) {
  return [&calls, name] {
    ++calls;
    DpPartition p;
    p.method = name;
    return p;
  };
}

TEST(PartitionMemoTest, NothingIsRememberedOutsideAScope) {
  const layout::Buffer buffer = case_a();
  const std::vector<double> costs = numel_costs(buffer);
  int calls = 0;
  {
    const RememberedPartitions scope;
    EXPECT_EQ(RememberedPartitions::active(), &scope);
    EXPECT_EQ(detail::remembered_partition(buffer, 1.0, costs, BalanceUnit::kCost,
                                           planner_named("inside", calls))
                  .method,
              "inside");
  }
  EXPECT_EQ(RememberedPartitions::active(), nullptr);
  for (const char* name : {"first", "second"}) {
    EXPECT_EQ(detail::remembered_partition(buffer, 1.0, costs, BalanceUnit::kCost,
                                           planner_named(name, calls))
                  .method,
              name);
  }
  EXPECT_EQ(calls, 3);
}

TEST(PartitionMemoTest, RemembersOnlyEqualInputs) {
  const RememberedPartitions scope;
  const layout::Buffer buffer = case_a();
  const std::vector<double> costs = numel_costs(buffer);
  int calls = 0;
  const auto remember = [&](const layout::Buffer& b, double alpha, const std::vector<double>& c,
                            BalanceUnit unit, const std::string& name) {
    return detail::remembered_partition(b, alpha, c, unit, planner_named(name, calls)).method;
  };
  std::vector<double> mine = costs;
  mine[0] = 0.123456789;
  EXPECT_EQ(remember(buffer, 0.75, mine, BalanceUnit::kCost, "first"), "first");
  EXPECT_EQ(remember(buffer, 0.75, mine, BalanceUnit::kCost, "again"), "first");
  EXPECT_EQ(calls, 1);
  // One input different, one bit of it at a time: planned afresh.
  std::vector<double> nudged = mine;
  nudged[1] = std::nextafter(nudged[1], 1e300);
  EXPECT_EQ(remember(buffer, 0.75, nudged, BalanceUnit::kCost, "cost"), "cost");
  EXPECT_EQ(remember(buffer, std::nextafter(0.75, 1.0), mine, BalanceUnit::kCost, "alpha"),
            "alpha");
  EXPECT_EQ(remember(buffer, 0.75, mine, BalanceUnit::kElements, "unit"), "unit");
  layout::Buffer moved = buffer;
  moved.buckets.back().end += 4;
  moved.total += 4;
  EXPECT_EQ(remember(moved, 0.75, mine, BalanceUnit::kCost, "bucket"), "bucket");
  layout::Buffer kinds = buffer;
  kinds.entries.front().matrix = !kinds.entries.front().matrix;
  EXPECT_EQ(remember(kinds, 0.75, mine, BalanceUnit::kCost, "kind"), "kind");
  EXPECT_EQ(calls, 6);
}

TEST(PartitionMemoTest, AThrowingPlanIsNotRemembered) {
  const RememberedPartitions scope;
  const layout::Buffer buffer = case_a();
  const std::vector<double> costs = numel_costs(buffer);
  int calls = 0;
  EXPECT_THROW(detail::remembered_partition(buffer, 1.0, costs, BalanceUnit::kCost,
                                            [&]() -> DpPartition {
                                              ++calls;
                                              throw std::runtime_error("planner failed");
                                            }),
               std::runtime_error);
  EXPECT_EQ(detail::remembered_partition(buffer, 1.0, costs, BalanceUnit::kCost,
                                         planner_named("planned", calls))
                .method,
            "planned");
  EXPECT_EQ(calls, 2);
}

TEST(PartitionMemoTest, TheRememberedPartitionIsThePlannedOne) {
  const RememberedPartitions scope;
  const layout::Buffer buffer = case_a();
  const std::vector<double> costs = numel_costs(buffer);
  const DpPartition first = alpha_balanced_partition(buffer, 1.0, costs, BalanceUnit::kCost);
  const DpPartition second = alpha_balanced_partition(buffer, 1.0, costs, BalanceUnit::kCost);
  EXPECT_EQ(first.owner, second.owner);
  EXPECT_EQ(first.method, second.method);
  ASSERT_EQ(first.buckets.size(), second.buckets.size());
  for (std::size_t b = 0; b < first.buckets.size(); ++b) {
    EXPECT_EQ(first.buckets[b].pos, second.buckets[b].pos);
  }
}

}  // namespace
}  // namespace canzona::plan
