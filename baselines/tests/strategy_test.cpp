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
  const std::int64_t capacity = plan::slot_capacity_elements(options, 4);
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

// check_plan's one-pass test of "every rank steps its matrices once" hands every fault to the
// per-rank check, which names the rank and the matrix.
TEST(StrategyTest, CheckPlanNamesARankThatStepsAMatrixWronglyOften) {
  const auto expect_invalid = [](const StepPlan& plan, const std::string& what) {
    try {
      plan::check_plan(plan);
      ADD_FAILURE() << "expected an invalid plan: " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  const StepPlan hosted = build("qwen3-0.6b", 4, 2, "canzona");
  ASSERT_NO_THROW(plan::check_plan(hosted));
  const auto first_hosted = [](const StepPlan& p, int d) -> std::pair<std::size_t, std::size_t> {
    const auto& groups = p.micro_groups.at(static_cast<std::size_t>(d));
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (!groups[g].slots.at(0).empty()) return {g, groups[g].slots[0].front()};
    }
    return {0, p.matrices.size()};
  };
  {  // a matrix dropped from its owner's slot
    StepPlan p = hosted;
    const auto [g, m] = first_hosted(p, 1);
    ASSERT_LT(m, p.matrices.size());
    auto& slot = p.micro_groups[1][g].slots[0];
    slot.erase(slot.begin());
    expect_invalid(
        p, fmt::format("DP rank 1 steps matrix '{}' 0 times, expected 1", p.matrices[m].name));
  }
  {  // the owner steps it twice
    StepPlan p = hosted;
    const auto [g, m] = first_hosted(p, 1);
    p.micro_groups[1][g].slots[0].push_back(m);
    expect_invalid(
        p, fmt::format("DP rank 1 steps matrix '{}' 2 times, expected 1", p.matrices[m].name));
  }
  {  // another rank steps it as well
    StepPlan p = hosted;
    const auto [g, m] = first_hosted(p, 1);
    const auto [g0, m0] = first_hosted(p, 0);
    ASSERT_LT(m0, p.matrices.size());
    p.micro_groups[0][g0].slots[0].push_back(m);
    expect_invalid(
        p, fmt::format("DP rank 0 steps matrix '{}' 1 times, expected 0", p.matrices[m].name));
  }
  StepPlan replicated = build("qwen3-0.6b", 4, 2, "sc");
  ASSERT_NO_THROW(plan::check_plan(replicated));
  ASSERT_FALSE(replicated.replicated_matrices.at(3).empty());
  {  // a replicated matrix missing on the last rank
    StepPlan p = replicated;
    const std::size_t m = p.replicated_matrices[3].back();
    p.replicated_matrices[3].pop_back();
    expect_invalid(
        p, fmt::format("DP rank 3 steps matrix '{}' 0 times, expected 1", p.matrices[m].name));
  }
  {  // and twice on another
    StepPlan p = replicated;
    const std::size_t m = p.replicated_matrices[2].front();
    p.replicated_matrices[2].push_back(m);
    expect_invalid(
        p, fmt::format("DP rank 2 steps matrix '{}' 2 times, expected 1", p.matrices[m].name));
  }
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

// ---- Megatron's data flow: dtypes, gradient-only TP gathers, each baseline's own wrapper -------

std::vector<plan::PlannedCollective> of_phase(const StepPlan& plan, int d, int t,
                                              plan::Phase phase) {
  std::vector<plan::PlannedCollective> out;
  for (const plan::PlannedCollective& c : rank_collectives(plan, d, t)) {
    if (c.phase == phase) out.push_back(c);
  }
  return out;
}

TEST(DataFlowTest, CollectivesCarryMegatronsDtypes) {
  StrategyOptions options;
  const StepPlan bf16 = build("qwen3-0.6b", 4, 2, "canzona", options);
  for (const plan::PlannedCollective& c : rank_collectives(bf16, 1, 1)) {
    const comm::DataType want = c.phase == plan::Phase::kParamSync ? comm::DataType::kBFloat16
                                : c.phase == plan::Phase::kTpScatter
                                    ? comm::DataType::kBFloat16  // Muon's bf16 NS direction
                                    : comm::DataType::kFloat32;
    EXPECT_EQ(c.dtype, want) << c.op << " in " << plan::to_string(c.phase);
  }
  // Bytes follow the dtype: the bf16 param all-gather moves half of the fp32 one.
  options.precision.params = comm::DataType::kFloat32;
  const StepPlan fp32 = build("qwen3-0.6b", 4, 2, "canzona", options);
  const auto ag16 = of_phase(bf16, 1, 1, plan::Phase::kParamSync);
  const auto ag32 = of_phase(fp32, 1, 1, plan::Phase::kParamSync);
  ASSERT_EQ(ag16.size(), ag32.size());
  ASSERT_FALSE(ag16.empty());
  for (std::size_t i = 0; i < ag16.size(); ++i) {
    EXPECT_EQ(ag16[i].count, ag32[i].count);
    EXPECT_EQ(2 * ag16[i].bytes_received, ag32[i].bytes_received);
  }
  // Gradients reduced in bf16 on request, and the direction in fp32 for fp32 Newton–Schulz.
  options.precision = {comm::DataType::kBFloat16, comm::DataType::kBFloat16};
  options.optimizer.muon.ns_precision = optim::NsPrecision::kFloat32;
  const StepPlan bf16_grads = build("qwen3-0.6b", 4, 2, "canzona", options);
  for (const auto& c : of_phase(bf16_grads, 0, 0, plan::Phase::kGradSync)) {
    EXPECT_EQ(c.dtype, comm::DataType::kBFloat16);
  }
  for (const auto& c : of_phase(bf16_grads, 0, 0, plan::Phase::kTpScatter)) {
    EXPECT_EQ(c.dtype, comm::DataType::kFloat32);
  }
}

TEST(DataFlowTest, TpGathersMoveGradientShardsOnly) {
  for (std::string_view name : {"canzona", "sc"}) {
    const StepPlan plan = build("qwen3-0.6b", 2, 4, name);
    for (int t = 0; t < 4; ++t) {
      std::uint64_t gathered = 0;
      for (const auto& c : of_phase(plan, 0, t, plan::Phase::kTpGather)) {
        gathered += c.bytes_received + c.bytes_sent;
      }
      // Every matrix DP rank 0 steps moves its three other fp32 shards to its host (or to
      // every rank, TP-SC) and this rank's shard out: one fp32 element per element, no params.
      std::uint64_t expected = 0;
      for (const plan::MatrixPlan& m : plan.matrices) {
        if (!m.sharded() || (m.dp_owner != 0 && m.dp_owner != -1)) continue;
        const auto local = static_cast<std::uint64_t>(m.local.rows * m.local.cols) * 4;
        if (m.tp_host == -1) {
          expected += 2 * 3 * local;  // all-gather: 3 shards out, 3 in
        } else {
          expected += m.tp_host == t ? 3 * local : local;
        }
      }
      EXPECT_EQ(gathered, expected) << name << " tp rank " << t;
    }
  }
}

TEST(DataFlowTest, DpScAllReducesAndStepsEverythingWithoutParamSync) {
  const StepPlan plan = build("qwen3-0.6b", 4, 1, "sc");
  for (const plan::BufferPlan& bp : plan.buffers) {
    EXPECT_EQ(bp.grad_sync, plan::GradSync::kAllReduce) << bp.buffer;
    EXPECT_EQ(bp.param_sync, plan::ParamSync::kNone) << bp.buffer;
  }
  for (int d = 0; d < 4; ++d) {
    EXPECT_TRUE(of_phase(plan, d, 0, plan::Phase::kParamSync).empty());
  }
  // AdamW replicated: every rank steps every AdamW element.
  std::int64_t adamw_total = 0;
  for (const plan::BufferPlan& bp : plan.buffers) {
    if (!bp.matrix) adamw_total += plan.layout.buffers[bp.buffer].total;
  }
  for (const plan::RankLoad& load : plan_metrics(plan).ranks) {
    EXPECT_EQ(load.adamw_elements, adamw_total);
  }
}

TEST(DataFlowTest, LayerwiseDealsAdamWParamsAndGathersThemInTheSameAllGatherV) {
  const StepPlan plan = build("qwen3-0.6b", 4, 1, "layerwise");
  std::int64_t numel = 0;
  for (const plan::BufferPlan& bp : plan.buffers) {
    EXPECT_EQ(bp.grad_sync, plan::GradSync::kAllReduce);
    EXPECT_EQ(bp.param_sync, plan::ParamSync::kAllGatherOwned);
    const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
    for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
      EXPECT_GE(bp.owner[e], 0) << buffer.entries[e].name;
      numel += buffer.entries[e].numel();
    }
  }
  ASSERT_EQ(owned_sync_groups(plan).size(), 1u) << "dense buffers share one all-gather-v";
  std::int64_t adamw_owned = 0;
  for (int d = 0; d < 4; ++d) {
    const auto sync = of_phase(plan, d, 0, plan::Phase::kParamSync);
    ASSERT_EQ(sync.size(), 1u);
    EXPECT_EQ(sync[0].op, "all_gather");
    EXPECT_EQ(sync[0].dtype, comm::DataType::kBFloat16);
    EXPECT_EQ(sync[0].count, static_cast<std::size_t>(numel)) << "matrices and AdamW params";
    adamw_owned += plan_metrics(plan).ranks[static_cast<std::size_t>(d)].adamw_elements;
  }
  // Each AdamW element is stepped by exactly one rank, its owner.
  std::int64_t adamw_numel = 0;
  for (const plan::BufferPlan& bp : plan.buffers) {
    if (bp.matrix) continue;
    for (const auto& e : plan.layout.buffers[bp.buffer].entries) adamw_numel += e.numel();
  }
  EXPECT_EQ(adamw_owned, adamw_numel);
}

TEST(DataFlowTest, SerialExecutionIssuesGatherThenScatterPerMicroGroup) {
  StrategyOptions options;
  options.slot_mib = 30;  // several micro-groups (the largest matrix is 24 MiB)
  options.tp_execution = plan::TpExecution::kSerial;
  const StepPlan serial = build("qwen3-0.6b", 1, 4, "canzona", options);
  options.tp_execution = plan::TpExecution::kPipelined;
  const StepPlan pipelined = build("qwen3-0.6b", 1, 4, "canzona", options);
  ASSERT_GT(serial.micro_groups[0].size(), 2u);
  EXPECT_NE(plan_hash(serial), plan_hash(pipelined));
  std::vector<std::pair<plan::Phase, int>> order;
  for (const auto& c : rank_collectives(serial, 0, 0)) {
    if (c.micro_group >= 0) order.emplace_back(c.phase, c.micro_group);
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i].first, i % 2 == 0 ? plan::Phase::kTpGather : plan::Phase::kTpScatter);
    EXPECT_EQ(order[i].second, static_cast<int>(i / 2));
  }
  // The same collectives either way, only the order differs.
  EXPECT_EQ(rank_collectives(serial, 0, 0).size(), rank_collectives(pipelined, 0, 0).size());
}

TEST(DataFlowTest, BadPrecisionIsAConfigError) {
  StrategyOptions options;
  options.precision = {comm::DataType::kFloat32, comm::DataType::kBFloat16};
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "canzona", options), ConfigError);
  options.precision = {comm::DataType::kFloat16, comm::DataType::kFloat32};
  EXPECT_THROW(build("qwen3-0.6b", 2, 1, "canzona", options), ConfigError);
}

}  // namespace
}  // namespace canzona::baselines
