// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// StepPlans of every named strategy on Qwen3 layouts: the invariants (check_plan runs inside
// make_step_plan; here we check what it cannot: semantics of each strategy), determinism of the
// hash, collective byte conservation, capacity bounds and bad input.
#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/testing/seed.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>

namespace canzona::baselines {
namespace {

using plan::StepPlan;
using plan::StrategyOptions;

StepPlan build(const std::string& model, int dp, int tp, std::string_view strategy,
               StrategyOptions options = {}) {
  apply_strategy(strategy, options);
  layout::ParallelConfig config;
  config.dp = dp;
  config.tp = tp;
  return make_step_plan(model::find_model(model), config, options);
}

class EveryStrategy
    : public ::testing::TestWithParam<std::tuple<std::string_view, std::pair<int, int>>> {};

TEST_P(EveryStrategy, StepsEveryMatrixOnceAndConservesBytes) {
  const auto [name, shape] = GetParam();
  const auto [dp, tp] = shape;
  const StepPlan plan = build("qwen3-0.6b", dp, tp, name);
  EXPECT_EQ(plan.strategy, name);
  EXPECT_EQ(plan_hash(plan), plan_hash(build("qwen3-0.6b", dp, tp, name)));

  // Every collective: bytes sent over the group equal bytes received over the group.
  std::map<std::tuple<int, int, std::size_t>, std::pair<std::uint64_t, std::uint64_t>> totals;
  for (int d = 0; d < dp; ++d) {
    for (int t = 0; t < tp; ++t) {
      // Collectives of one group line up by their position in that group's sequence; DP groups
      // are identified by the tp rank, TP groups by the dp rank.
      std::size_t position[2] = {0, 0};
      for (const plan::PlannedCollective& c : rank_collectives(plan, d, t)) {
        const int kind = static_cast<int>(c.group);
        const int group_id = c.group == plan::Group::kDp ? t : d;
        auto& [sent, received] = totals[{group_id, kind, position[kind]++}];
        sent += c.bytes_sent;
        received += c.bytes_received;
      }
    }
  }
  for (const auto& [key, value] : totals) EXPECT_EQ(value.first, value.second);

  const plan::PlanMetrics metrics = plan_metrics(plan);
  ASSERT_EQ(metrics.ranks.size(), static_cast<std::size_t>(dp * tp));
  EXPECT_GE(metrics.max_over_lower_bound, 1.0 - 1e-12);
  const double total =
      std::accumulate(plan.matrices.begin(), plan.matrices.end(), 0.0,
                      [](double s, const plan::MatrixPlan& m) { return s + m.cost; });
  if (plan.options.dp == plan::DpStrategy::kReplicated &&
      plan.options.tp == plan::TpStrategy::kReplicated) {
    // DP-SC + TP-SC: every rank steps every matrix.
    for (const plan::RankLoad& load : metrics.ranks) EXPECT_DOUBLE_EQ(load.cost, total);
  }
}

INSTANTIATE_TEST_SUITE_P(Plans, EveryStrategy,
                         ::testing::Combine(::testing::ValuesIn(strategy_names()),
                                            ::testing::Values(std::pair{1, 1}, std::pair{2, 1},
                                                              std::pair{4, 2}, std::pair{8, 1},
                                                              std::pair{2, 4}, std::pair{16, 8})),
                         [](const auto& param) {
                           return fmt::format("{}_dp{}_tp{}", std::get<0>(param.param),
                                              std::get<1>(param.param).first,
                                              std::get<1>(param.param).second);
                         });

TEST(StrategyTest, AlphaOneIsAtLeastAsBalancedAsStatic) {
  for (const auto& [dp, tp] : {std::pair{8, 1}, std::pair{16, 2}, std::pair{32, 8}}) {
    StrategyOptions options;
    options.tp = plan::TpStrategy::kReplicated;
    options.dp = plan::DpStrategy::kCanzona;
    layout::ParallelConfig config{dp, tp, 8};
    const auto canzona =
        plan_metrics(make_step_plan(model::find_model("qwen3-8b"), config, options));
    options.dp = plan::DpStrategy::kStatic;
    const auto fixed = plan_metrics(make_step_plan(model::find_model("qwen3-8b"), config, options));
    EXPECT_LE(canzona.imbalance, fixed.imbalance) << "dp " << dp << " tp " << tp;
  }
}

TEST(StrategyTest, HashChangesWithTheDecisions) {
  StrategyOptions a;
  StrategyOptions b;
  b.alpha = 0.0;
  EXPECT_NE(plan_hash(build("qwen3-0.6b", 8, 1, "canzona", a)),
            plan_hash(build("qwen3-0.6b", 8, 1, "canzona", b)));
  EXPECT_NE(plan_hash(build("qwen3-0.6b", 4, 2, "canzona")),
            plan_hash(build("qwen3-0.6b", 4, 2, "asc")));
}

TEST(StrategyTest, GlobalScheduleRespectsTheSlotCapacity) {
  std::mt19937_64 rng(testing::test_seed());
  StrategyOptions options;
  options.tp_schedule = plan::MicroGroupMode::kGlobal;
  // Qwen3-0.6B's largest matrix is linear_fc1, 6144x1024 fp32 = 24 MiB; draw capacities above it.
  options.slot_mib = std::uniform_real_distribution<double>(24.0, 96.0)(rng);
  const StepPlan plan = build("qwen3-0.6b", 2, 4, "canzona", options);
  const std::int64_t capacity = plan::slot_capacity_elements(options);
  for (const auto& groups : plan.micro_groups) {
    for (const auto& group : groups) {
      for (const auto& slot : group.slots) {
        std::int64_t numel = 0;
        for (std::size_t i : slot) numel += plan.matrices[i].full.rows * plan.matrices[i].full.cols;
        EXPECT_LE(numel, capacity) << "slot_mib " << options.slot_mib;
      }
    }
  }
}

TEST(StrategyTest, CapacityBelowTheLargestMatrixNamesIt) {
  StrategyOptions options;
  options.slot_mib = 1.0;
  try {
    build("qwen3-0.6b", 2, 4, "canzona", options);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("--slot-mib >="), std::string::npos) << e.what();
  }
  options.tp_schedule = plan::MicroGroupMode::kSlot;  // promotes instead
  EXPECT_NO_THROW(build("qwen3-0.6b", 2, 4, "canzona", options));
}

TEST(StrategyTest, RejectsBadInput) {
  StrategyOptions options;
  options.alpha = 1.5;
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "canzona", options), ConfigError);
  options.alpha = -0.1;
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "canzona", options), ConfigError);
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "no-such-strategy"), ConfigError);
  StrategyOptions adamw;
  adamw.optimizer.kind = optim::OptimizerKind::kAdamW;
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "canzona", adamw), ConfigError);
  StrategyOptions per_head;
  per_head.split.qkv_per_head = true;  // without qkv
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "canzona", per_head), ConfigError);
  EXPECT_THROW(plan::parse_dp_strategy("Canzona"), ConfigError);
  EXPECT_THROW(plan::parse_tp_transport("ring"), ConfigError);
}

TEST(StrategyTest, UnsplitFc1AtTpStepsGateThenUp) {
  const StepPlan plan = build("qwen3-0.6b", 1, 4, "canzona");
  for (const plan::MatrixPlan& m : plan.matrices) {
    if (m.name.find("linear_fc1") == std::string::npos) continue;
    ASSERT_EQ(m.fragments.size(), 1U);
    const auto& rows = m.fragments[0].rows;
    ASSERT_EQ(rows.size(), 8U);  // gate_0..gate_3, up_0..up_3
    const std::int64_t block = m.full.rows / 8;
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(rows[static_cast<std::size_t>(r)].begin, 2 * r * block) << m.name;
      EXPECT_EQ(rows[static_cast<std::size_t>(4 + r)].begin, (2 * r + 1) * block) << m.name;
    }
  }
}

}  // namespace
}  // namespace canzona::baselines
