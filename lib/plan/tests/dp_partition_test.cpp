// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// DP partitions: paper-spec §3.6 Case A cut by cut, the atomicity check on broken plans, and the
// planners' properties on Qwen3 layouts and on random tiny buffers (seed printed).
#include <canzona/core/error.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/plan/cost.hpp>
#include <canzona/plan/dp_partition.hpp>
#include <canzona/plan/metrics.hpp>
#include <canzona/testing/seed.hpp>

#include "plan_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace canzona::plan {
namespace {

using testing::case_a;
using testing::make_buffer;
using testing::numel_costs;
using Cuts = std::vector<std::int64_t>;

std::vector<double> rank_numel(const layout::Buffer& buffer, const DpPartition& plan) {
  return partition_metrics(buffer, plan, numel_costs(buffer), buffer.dp).rank_cost;
}

// ---------------------------------------------------------------------------------------------
// paper-spec §3.6 Case A (R = 4, no padding, target 68).

TEST(DpPartitionTest, CaseAStaticFollowsEquationOne) {
  const auto buffer = case_a();
  const auto plan = static_partition(buffer);
  EXPECT_EQ(plan.method, "static");
  EXPECT_EQ(plan.buckets[0].pos, (Cuts{0, 64, 72, 112, 144}));
  EXPECT_EQ(plan.buckets[1].pos, (Cuts{144, 176, 208, 240, 272}));  // 0,32,64,96,128 relative
  EXPECT_EQ(rank_numel(buffer, plan), (std::vector<double>{96, 40, 72, 64}));
  EXPECT_NEAR(owner_imbalance(plan, numel_costs(buffer), 4), 96.0 / 68.0, 1e-12);  // 1.412
  EXPECT_NO_THROW(check_partition(buffer, plan));
}

TEST(DpPartitionTest, CaseAAlphaZeroIsRejectedAndStaticKept) {
  const auto buffer = case_a();
  const auto greedy = alpha_greedy_partition(buffer, 0.0);
  EXPECT_EQ(greedy.buckets[0].pos, (Cuts{0, 64, 72, 104, 144}));
  EXPECT_EQ(greedy.buckets[1].pos, (Cuts{144, 176, 208, 240, 272}));
  EXPECT_EQ(rank_numel(buffer, greedy), (std::vector<double>{96, 40, 64, 72}));
  // 1.412 is not strictly below 1.412: the Eq.(1) plan is kept.
  const auto plan = alpha_balanced_partition(buffer, 0.0, numel_costs(buffer));
  EXPECT_EQ(plan.method, "static");
  EXPECT_EQ(plan.buckets[0].pos, (Cuts{0, 64, 72, 112, 144}));
  EXPECT_EQ(plan.buckets[1].pos, (Cuts{144, 176, 208, 240, 272}));
  EXPECT_EQ(plan.owner, static_partition(buffer).owner);
}

TEST(DpPartitionTest, CaseAAlphaHalf) {
  const auto buffer = case_a();
  const auto plan = alpha_balanced_partition(buffer, 0.5, numel_costs(buffer));
  EXPECT_EQ(plan.method, "alpha_balanced");
  EXPECT_EQ(plan.buckets[0].pos, (Cuts{0, 64, 72, 104, 144}));
  EXPECT_EQ(plan.buckets[1].pos, (Cuts{144, 160, 208, 240, 272}));  // 0,16,64,96,128
  EXPECT_EQ(rank_numel(buffer, plan), (std::vector<double>{80, 56, 64, 72}));
  EXPECT_NEAR(owner_imbalance(plan, numel_costs(buffer), 4), 80.0 / 68.0, 1e-12);  // 1.176
}

TEST(DpPartitionTest, CaseAAlphaOne) {
  const auto buffer = case_a();
  const auto plan = alpha_balanced_partition(buffer, 1.0, numel_costs(buffer));
  EXPECT_EQ(plan.method, "alpha_balanced");
  EXPECT_EQ(plan.buckets[0].pos, (Cuts{0, 64, 72, 104, 144}));
  EXPECT_EQ(plan.buckets[1].pos, (Cuts{144, 144, 208, 240, 272}));  // 0,0,64,96,128
  EXPECT_EQ(rank_numel(buffer, plan), (std::vector<double>{64, 72, 64, 72}));
  EXPECT_NEAR(owner_imbalance(plan, numel_costs(buffer), 4), 72.0 / 68.0, 1e-12);  // 1.059
  // Rank 0 has an empty slice of bucket 1 and owns none of its entries.
  for (std::size_t e = buffer.buckets[1].first_entry; e <= buffer.buckets[1].last_entry; ++e) {
    EXPECT_NE(plan.owner[e], 0);
  }
  EXPECT_FALSE(plan.buckets[1].even());
}

TEST(DpPartitionTest, CaseAEvenSplitCutsTheBigEntry) {
  const auto buffer = case_a();
  const auto plan = even_partition(buffer);
  EXPECT_EQ(plan.buckets[0].pos, (Cuts{0, 36, 72, 108, 144}));
  EXPECT_TRUE(plan.buckets[0].even());
  EXPECT_EQ(plan.owner[0], -1);  // [0, 64) crosses 36
  EXPECT_EQ(plan.owner[1], 1);   // [64, 72)
  EXPECT_EQ(plan.owner[6], -1);  // [104, 112) crosses 108
  EXPECT_EQ(plan.owner[7], 3);
  EXPECT_THROW(check_partition(buffer, plan), Error);
}

TEST(DpPartitionTest, AlphaOutsideTheUnitIntervalIsAConfigError) {
  const auto buffer = case_a();
  const auto costs = numel_costs(buffer);
  EXPECT_THROW(alpha_balanced_partition(buffer, -0.1, costs), ConfigError);
  EXPECT_THROW(alpha_balanced_partition(buffer, 1.5, costs), ConfigError);
  EXPECT_THROW(alpha_balanced_partition(buffer, std::nan(""), costs), ConfigError);
  EXPECT_THROW(alpha_balanced_partition(buffer, 1.0, std::vector<double>{1, 2}), ConfigError);
}

// ---------------------------------------------------------------------------------------------
// check_partition on hand-broken plans.

TEST(DpPartitionTest, CheckPartitionRejectsBrokenPlans) {
  const auto buffer = case_a();
  const auto good = static_partition(buffer);
  ASSERT_NO_THROW(check_partition(buffer, good));

  auto inside = good;  // cut at 32 falls inside entry 0 = [0, 64)
  inside.buckets[0].pos = {0, 32, 72, 112, 144};
  EXPECT_THROW(check_partition(buffer, inside), Error);

  auto wrong_owner = good;  // entry 1 = [64, 72) is in rank 1's slice, not rank 0's
  wrong_owner.owner[1] = 0;
  EXPECT_THROW(check_partition(buffer, wrong_owner), Error);

  auto out_of_range = good;
  out_of_range.owner[1] = 4;
  EXPECT_THROW(check_partition(buffer, out_of_range), Error);

  auto decreasing = good;
  decreasing.buckets[1].pos = {144, 208, 176, 240, 272};
  EXPECT_THROW(check_partition(buffer, decreasing), Error);

  auto not_covering = good;
  not_covering.buckets[1].pos.back() = 264;
  EXPECT_THROW(check_partition(buffer, not_covering), Error);

  auto missing_bucket = good;
  missing_bucket.buckets.pop_back();
  EXPECT_THROW(check_partition(buffer, missing_bucket), Error);

  auto short_cuts = good;
  short_cuts.buckets[0].pos = {0, 64, 144};
  EXPECT_THROW(check_partition(buffer, short_cuts), Error);
}

// ---------------------------------------------------------------------------------------------
// Properties shared by every case.

// Largest distance between adjacent candidate boundaries (bucket start, entry ends, bucket end).
std::int64_t largest_candidate_gap(const layout::Buffer& buffer, const layout::Bucket& bucket) {
  std::int64_t prev = bucket.start;
  std::int64_t gap = 0;
  for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
    gap = std::max(gap, buffer.entries[e].end - prev);
    prev = buffer.entries[e].end;
  }
  return std::max(gap, bucket.end - prev);
}

// Every entry owned once by a rank whose slice holds it, cuts covering each bucket, and (from the
// disjoint, covering slices) no entry owned twice.
void expect_valid(const layout::Buffer& buffer, const DpPartition& plan) {
  ASSERT_NO_THROW(check_partition(buffer, plan)) << plan.method;
  std::vector<std::int64_t> owned(buffer.dp, 0);
  for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
    ASSERT_GE(plan.owner[e], 0);
    owned[plan.owner[e]] += buffer.entries[e].numel();
  }
  EXPECT_EQ(std::accumulate(owned.begin(), owned.end(), std::int64_t{0}), buffer.data_numel());
}

// The properties the brief asks for, on one buffer with per-entry `costs`.
void expect_partition_properties(const layout::Buffer& buffer, std::span<const double> costs,
                                 double alpha) {
  const auto numel = numel_costs(buffer);
  const auto fixed = static_partition(buffer);
  expect_valid(buffer, fixed);

  const auto greedy = alpha_greedy_partition(buffer, alpha);
  expect_valid(buffer, greedy);
  for (const double* c : {numel.data(), costs.data()}) {
    const std::span<const double> cost(c, buffer.entries.size());
    const auto chosen = alpha_balanced_partition(buffer, alpha, cost);
    expect_valid(buffer, chosen);
    // The fallback guarantees: never worse than Eq.(1) on the cost it was judged by.
    EXPECT_LE(owner_imbalance(chosen, cost, buffer.dp), owner_imbalance(fixed, cost, buffer.dp));
    EXPECT_EQ(chosen.method == "alpha_balanced",
              owner_imbalance(greedy, cost, buffer.dp) < owner_imbalance(fixed, cost, buffer.dp));
    // Balancing in cost units as well: valid, and never worse on the cost than elements only.
    const auto by_cost = alpha_balanced_partition(buffer, alpha, cost, BalanceUnit::kCost);
    expect_valid(buffer, by_cost);
    expect_valid(buffer, alpha_greedy_partition(buffer, alpha, cost));
    EXPECT_LE(owner_imbalance(by_cost, cost, buffer.dp), owner_imbalance(chosen, cost, buffer.dp));
    // The refinement and the ordered LPT keep atomicity; refining never raises the maximum.
    const auto lpt = ordered_lpt_partition(buffer, cost);
    expect_valid(buffer, lpt);
    for (const DpPartition* start : {&greedy, &fixed, &lpt}) {
      const auto refined = refine_partition(buffer, *start, cost);
      expect_valid(buffer, refined);
      EXPECT_LE(owner_imbalance(refined, cost, buffer.dp),
                owner_imbalance(*start, cost, buffer.dp));
    }
  }

  // alpha = 0: each cut is the boundary nearest to its even position, so within half the largest
  // gap between adjacent boundaries (a gap is one entry plus < 64 alignment, or the bucket's
  // tail padding).
  const auto comm = alpha_greedy_partition(buffer, 0.0);
  for (std::size_t b = 0; b < buffer.buckets.size(); ++b) {
    const auto& bucket = buffer.buckets[b];
    const std::int64_t gap = largest_candidate_gap(buffer, bucket);
    for (int r = 0; r <= buffer.dp; ++r) {
      const std::int64_t even = bucket.start + r * bucket.shard_size();
      EXPECT_LE(2 * std::abs(comm.buckets[b].pos[r] - even), gap) << "bucket " << b << " cut " << r;
    }
  }
}

TEST(DpPartitionTest, CostUnitsBalanceWhatElementsCannot) {
  // Four equal entries costing 3, 1, 1, 1 on two ranks: the element greedy cuts in the middle
  // (costs 4 | 2), the cost greedy after the first entry (3 | 3).
  const auto buffer = make_buffer(2, {{64, 64, 64, 64}}, layout::kParamAlignment,
                                  layout::bucket_alignment(2, false));
  const std::vector<double> costs = {3, 1, 1, 1};
  const auto elements = alpha_balanced_partition(buffer, 1.0, costs, BalanceUnit::kElements);
  const auto cost = alpha_balanced_partition(buffer, 1.0, costs, BalanceUnit::kCost);
  EXPECT_DOUBLE_EQ(owner_imbalance(elements, costs, 2), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(owner_imbalance(cost, costs, 2), 1.0);
  EXPECT_EQ(cost.owner, (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(cost.buckets[0].pos, (std::vector<std::int64_t>{0, 64, 256}));
}

// Σ_r (base[r] + run_r)² of a deal.
double squares_of_deal(const std::vector<double>& base, const std::vector<double>& costs,
                       const std::vector<int>& owner) {
  std::vector<double> load = base;
  for (std::size_t i = 0; i < costs.size(); ++i) load[owner[i]] += costs[i];
  return std::inner_product(load.begin(), load.end(), load.begin(), 0.0);
}

// The best over every non-decreasing owner sequence, by enumeration.
double brute_force_squares(const std::vector<double>& base, const std::vector<double>& costs) {
  const int ranks = static_cast<int>(base.size());
  double best = std::numeric_limits<double>::infinity();
  std::vector<int> owner(costs.size(), 0);
  while (true) {
    best = std::min(best, squares_of_deal(base, costs, owner));
    // Next non-decreasing sequence: bump the last position that can grow, reset the rest to it.
    std::size_t i = costs.size();
    while (i > 0 && owner[i - 1] == ranks - 1) --i;
    if (i == 0) return best;
    ++owner[i - 1];
    std::fill(owner.begin() + static_cast<std::ptrdiff_t>(i), owner.end(), owner[i - 1]);
  }
}

TEST(DpPartitionTest, BucketDealIsTheExactSumOfSquaresOptimum) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("seed {} (CANZONA_TEST_SEED reproduces it)", seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> ranks_dist(1, 5);
  std::uniform_int_distribution<int> entries_dist(0, 8);
  std::uniform_real_distribution<double> cost_dist(0.0, 10.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> base(ranks_dist(rng));
    for (double& b : base) b = trial % 2 == 0 ? 0.0 : cost_dist(rng);
    std::vector<double> costs(entries_dist(rng));
    for (double& c : costs) c = cost_dist(rng);
    SCOPED_TRACE(fmt::format("trial {}: {} ranks, {} entries", trial, base.size(), costs.size()));
    const std::vector<int> owner = deal_minimising_squares(base, costs);
    ASSERT_EQ(owner.size(), costs.size());
    for (std::size_t i = 0; i < owner.size(); ++i) {
      ASSERT_GE(owner[i], i == 0 ? 0 : owner[i - 1]) << "owners must not decrease";
      ASSERT_LT(owner[i], static_cast<int>(base.size()));
    }
    EXPECT_NEAR(squares_of_deal(base, costs, owner), brute_force_squares(base, costs),
                1e-9 * (1.0 + brute_force_squares(base, costs)));
  }
}

TEST(DpPartitionTest, EjectionChainsFindWhatSingleBucketDealsCannot) {
  // Two ranks, two buckets, each [4 | 3]: loads 8 and 6. Re-dealing either bucket alone cannot
  // help (its 4 may only move right together with its 3: 4 | 10 or 11 | 3), but handing bucket
  // 0's 4 to rank 1 and bucket 1's 3 to rank 0 gives 7 | 7.
  const auto buffer = make_buffer(2, {{64, 64}, {64, 64}}, layout::kParamAlignment,
                                  layout::bucket_alignment(2, false));
  const std::vector<double> costs = {4, 3, 4, 3};
  DpPartition start = static_partition(buffer);
  start.owner = {0, 1, 0, 1};
  for (std::size_t b = 0; b < 2; ++b) {
    start.buckets[b].pos = cuts_from_owners(buffer, buffer.buckets[b], start.owner);
  }
  ASSERT_NO_THROW(check_partition(buffer, start));
  ASSERT_DOUBLE_EQ(owner_imbalance(start, costs, 2), 8.0 / 7.0);
  const auto refined = refine_partition(buffer, start, costs);
  EXPECT_DOUBLE_EQ(owner_imbalance(refined, costs, 2), 1.0);
  EXPECT_EQ(refined.owner, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(refined.method, "refined");
}

TEST(DpPartitionTest, CutsFromOwnersRejectDecreasingOwners) {
  const auto buffer =
      make_buffer(2, {{64, 64}}, layout::kParamAlignment, layout::bucket_alignment(2, false));
  EXPECT_EQ(cuts_from_owners(buffer, buffer.buckets[0], std::vector<int>{0, 1}),
            (std::vector<std::int64_t>{0, 64, buffer.buckets[0].end}));
  EXPECT_EQ(cuts_from_owners(buffer, buffer.buckets[0], std::vector<int>{1, 1}),
            (std::vector<std::int64_t>{0, 0, buffer.buckets[0].end}));
  EXPECT_THROW(cuts_from_owners(buffer, buffer.buckets[0], std::vector<int>{1, 0}), Error);
  EXPECT_THROW(cuts_from_owners(buffer, buffer.buckets[0], std::vector<int>{0, 2}), Error);
}

// DESIGN §5: FLOP imbalance <= 1.05 where the lower bound allows. The whole-tensor floor is 1 for
// these (no matrix exceeds a rank's mean), and the refined plan reaches it at dp 8 and 16 (measured
// <= 1.011); dp 32/64 (1.03–1.23) are reported by the planner suite, not asserted.
TEST(DpPartitionTest, FlopBalancedPlansMeetTheTargetAtDp8And16) {
  optim::OptimizerSpec muon;
  for (const char* name : {"Qwen3-8B", "Qwen3-14B", "Qwen3-32B"}) {
    for (const int dp : {8, 16}) {
      layout::Zero1Options options;
      options.bucket_size = 400'000'000;
      const auto zero1 = layout::build_zero1_layout(model::find_model(name), {dp, 4, 8}, options);
      const auto& buffer = zero1.buffers.front();
      const auto flops = entry_costs(zero1, buffer, CostKind::kFlops, muon);
      const auto plan = alpha_balanced_partition(buffer, 1.0, flops, BalanceUnit::kCost);
      SCOPED_TRACE(fmt::format("{} dp {}", name, dp));
      EXPECT_LE(owner_imbalance(plan, flops, dp), 1.05);
      EXPECT_EQ(plan.method, "alpha_balanced_refined");
    }
  }
}

TEST(DpPartitionTest, RandomTinyBuffersSatisfyEveryProperty) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("seed {} (CANZONA_TEST_SEED reproduces it)", seed));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> dp_dist(1, 9);
  std::uniform_int_distribution<int> buckets_dist(1, 4);
  std::uniform_int_distribution<int> entries_dist(1, 12);
  std::uniform_int_distribution<std::int64_t> small(1, 200);
  std::uniform_int_distribution<std::int64_t> large(200, 3000);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int dp = dp_dist(rng);
    std::vector<std::vector<std::int64_t>> sizes(buckets_dist(rng));
    for (auto& bucket : sizes) {
      bucket.resize(entries_dist(rng));
      for (auto& s : bucket) {
        s = unit(rng) < 0.2 ? large(rng) : small(rng);
      }
    }
    const auto buffer =
        make_buffer(dp, sizes, layout::kParamAlignment, layout::bucket_alignment(dp, false));
    std::vector<double> costs;  // arbitrary positive costs exercise the acceptance test
    for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
      costs.push_back(1.0 + 100.0 * unit(rng));
    }
    const double alpha = trial % 3 == 0 ? 1.0 : trial % 3 == 1 ? 0.0 : unit(rng);
    SCOPED_TRACE(fmt::format("trial {} dp {} alpha {}", trial, dp, alpha));
    expect_partition_properties(buffer, costs, alpha);
    if (::testing::Test::HasFailure()) {
      return;
    }
  }
}

TEST(DpPartitionTest, QwenLayoutsSatisfyEveryProperty) {
  optim::OptimizerSpec muon;  // Muon, default options
  for (const char* name : {"Qwen3-8B", "Qwen3-14B", "Qwen3-32B"}) {
    const auto& model = model::find_model(name);
    for (const int dp : {8, 16, 32, 64}) {
      for (const int tp : {1, 4, 8}) {
        for (const std::int64_t bucket_size : {std::int64_t{0}, std::int64_t{400'000'000}}) {
          layout::Zero1Options options;
          options.bucket_size = bucket_size;
          const auto zero1 = layout::build_zero1_layout(model, {dp, tp, 8}, options);
          for (const auto& buffer : zero1.buffers) {
            SCOPED_TRACE(
                fmt::format("{} dp {} tp {} bucket {} {}", name, dp, tp, bucket_size, buffer.name));
            const auto flops = entry_costs(zero1, buffer, CostKind::kFlops, muon);
            const auto numel = numel_costs(buffer);
            expect_partition_properties(buffer, flops, 1.0);
            // alpha = 1 is at least as balanced as Eq.(1) in the numel acceptance metric.
            const auto balanced = alpha_balanced_partition(buffer, 1.0, numel);
            EXPECT_LE(owner_imbalance(balanced, numel, dp),
                      owner_imbalance(static_partition(buffer), numel, dp));
            if (::testing::Test::HasFailure()) {
              return;
            }
          }
        }
      }
    }
  }
}

// paper-spec §3.6 Case B ([SIM], "illustrative only"; numel cost, 400 M buckets, matrix buffer).
// The bucket counts match it exactly; the imbalances agree to within a few percent for Qwen3-32B
// (ours 2.462 -> 1.113 at tp 8 / dp 32, 6.075 -> 1.452 at tp 4 / dp 64; spec 2.47 -> 1.10,
// 5.88 -> 1.45) and differ for Qwen3-8B tp 4 / dp 64 (ours 3.092 -> 1.546, spec 3.09 -> 1.78), so
// only the bucket counts and the direction are asserted.
TEST(DpPartitionTest, CaseBBucketCountsMatchAndBalancingIsAccepted) {
  struct Row {
    const char* model;
    int dp, tp;
    std::size_t buckets;  // 0: not given by the spec
  };
  for (const Row& row :
       {Row{"Qwen3-32B", 32, 8, 10}, Row{"Qwen3-32B", 64, 4, 19}, Row{"Qwen3-8B", 64, 4, 0}}) {
    SCOPED_TRACE(fmt::format("{} dp {} tp {}", row.model, row.dp, row.tp));
    layout::Zero1Options options;
    options.bucket_size = 400'000'000;
    const auto zero1 =
        layout::build_zero1_layout(model::find_model(row.model), {row.dp, row.tp, 8}, options);
    const auto& buffer = zero1.buffers.front();
    ASSERT_EQ(buffer.name, "matrix");
    if (row.buckets != 0) {
      EXPECT_EQ(buffer.buckets.size(), row.buckets);
    }
    const auto numel = numel_costs(buffer);
    const auto balanced = alpha_balanced_partition(buffer, 1.0, numel);
    EXPECT_EQ(balanced.method, "alpha_balanced");
    const double fixed = owner_imbalance(static_partition(buffer), numel, row.dp);
    const double ours = owner_imbalance(balanced, numel, row.dp);
    EXPECT_GT(fixed, 2.0);
    EXPECT_LT(ours, 1.6);
  }
}

// Not an assertion: planning time and plan quality for the report (DESIGN §5 target: 32B on 256
// ranks in < 100 ms).
TEST(DpPartitionTest, ReportsPlanningTime) {
  optim::OptimizerSpec muon;
  struct Config {
    int dp, tp;
    std::int64_t bucket_size;
  };
  for (const Config c :
       {Config{32, 8, 400'000'000}, Config{256, 1, 400'000'000}, Config{256, 1, 0}}) {
    layout::Zero1Options options;
    options.bucket_size = c.bucket_size;
    const auto zero1 =
        layout::build_zero1_layout(model::find_model("Qwen3-32B"), {c.dp, c.tp, 8}, options);
    const auto& buffer = zero1.buffers.front();
    const auto costs = entry_costs(zero1, buffer, CostKind::kFlops, muon);
    constexpr int kRepeats = 20;
    DpPartition plan;
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < kRepeats; ++i) {
      plan = alpha_balanced_partition(buffer, 1.0, costs);
    }
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - begin;
    const auto fixed = static_partition(buffer);
    std::cout << "[ timing   ] Qwen3-32B dp " << c.dp << " tp " << c.tp << " bucket "
              << zero1.options.bucket_size << ": " << buffer.buckets.size() << " buckets, "
              << buffer.entries.size() << " entries, alpha_balanced_partition "
              << elapsed.count() / kRepeats << " ms; flops imbalance static "
              << owner_imbalance(fixed, costs, c.dp) << " -> " << plan.method << " "
              << owner_imbalance(plan, costs, c.dp) << "\n";
    EXPECT_NO_THROW(check_partition(buffer, plan));
  }
}

}  // namespace
}  // namespace canzona::plan
