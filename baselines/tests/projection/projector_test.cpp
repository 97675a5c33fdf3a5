// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Timelines of real StepPlans (every named strategy, small model) on hand-made topologies with a
// synthetic compute model: the exact serial case, free communication, the per-rank time
// accounting, straggler and phase bookkeeping, and the collective costs themselves.
#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/plan/rank_work.hpp>
#include <canzona/sim/collective_model.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/testing/seed.hpp>
#include <canzona/testing/tiny_model.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <random>
#include <set>
#include <string>
#include <tuple>

namespace canzona::sim {
namespace {

// hidden 128, 2 layers, 4 q heads / 2 kv heads of 32: valid for tp 1 and 2.
model::ModelSpec tiny_model() {
  return canzona::testing::tiny_dense_model(
      {.hidden = 128, .ffn = 384, .heads = 4, .kv_heads = 2, .head_dim = 32}, "tiny");
}

plan::StepPlan build(const std::string& strategy, int dp, int tp, bool split = false) {
  plan::StrategyOptions options;
  baselines::apply_strategy(strategy, options);
  options.split.qkv = split;  // q, k, v: each more than one row range of Megatron's linear_qkv
  options.split.fc1 = split;
  layout::ParallelConfig config;
  config.dp = dp;
  config.tp = tp;
  return baselines::make_step_plan(tiny_model(), config, options);
}

// Seconds proportional to the elements (AdamW 100× cheaper per element), plus a per-step offset
// drawn from the test seed so that no two shapes tie by accident.
class SyntheticCompute final : public ComputeModel {
 public:
  explicit SyntheticCompute(double offset) : offset_(offset) {}
  double step_seconds(const optim::OptimizerSpec& spec, optim::Shape s) override {
    const double n = static_cast<double>(s.rows) * static_cast<double>(s.cols);
    ++calls;
    return spec.kind == optim::OptimizerKind::kAdamW ? 1e-11 * n : 1e-8 * n + offset_;
  }
  // 1 ps per byte: the executor's memory passes cost a little, as on any device.
  double memory_pass_seconds(double bytes) override { return 1e-12 * bytes; }
  std::string kind() const override { return "synthetic"; }
  std::string description() const override { return "synthetic: 10 ns per matrix element"; }
  int calls = 0;

 private:
  double offset_;
};

Topology free_network() {
  Topology t = topology_preset("dgx-h100");
  t.name = "free";
  t.intra_node.base_latency_us = 0;
  t.intra_node.step_latency_us = 0;
  t.inter_node.step_latency_us = 0;
  t.intra_node.busbw_gbps = {1e15, 1e15, 1e15, 1e15, 1e15};
  t.inter_node.busbw_gbps = t.intra_node.busbw_gbps;
  t.inter_node.busbw_by_nodes.clear();
  return t;
}

// A slow network with 2 GPUs per node, so DP groups span nodes.
Topology small_nodes() {
  Topology t = topology_preset("dgx-a100");
  t.name = "small-nodes";
  t.gpus_per_node = 2;
  t.inter_node.busbw_gbps = {1, 1, 1, 1, 1};
  return t;
}

class ProjectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rng_.seed(canzona::testing::test_seed());
    offset_ = std::uniform_real_distribution<double>(1e-6, 1e-4)(rng_);
  }
  std::mt19937_64 rng_;
  double offset_ = 0;
};

TEST_F(ProjectorTest, OneRankRunsEverythingInSeriesWithoutCollectives) {
  const plan::StepPlan plan = build("canzona", 1, 1);
  SyntheticCompute compute(offset_);
  const Projection p = project(plan, topology_preset("dgx-h100"), compute);
  double expected = 0;
  for (const plan::MatrixPlan& m : plan.matrices) {
    for (const model::Fragment& f : m.fragments) {
      expected += 1e-8 * static_cast<double>(f.shape[0] * f.shape[1]) + offset_;
    }
  }
  const double adamw =
      1e-11 * static_cast<double>(plan::plan_metrics(plan).ranks[0].adamw_elements);
  // bf16 parameters: every stepped element's fp32 main parameter is read and its bf16 copy
  // written once (6 bytes); no DP, so no gradient average.
  const double publish = 1e-12 * 6.0 * static_cast<double>(plan::stepped_elements(plan, 0));
  EXPECT_EQ(p.collectives, 0);
  EXPECT_NEAR(p.step_seconds, expected + adamw + publish, 1e-12);
  EXPECT_NEAR(p.straggler.phases.update, adamw + publish, 1e-15);
  EXPECT_DOUBLE_EQ(p.straggler.exposed_comm, 0.0);
  EXPECT_EQ(p.compute_source, "synthetic: 10 ns per matrix element");
}

TEST_F(ProjectorTest, FreeCommunicationWithoutTpLeavesOnlyTheBusiestRanksCompute) {
  // Without TP nothing waits for another rank's kernels except the final parameter sync, after
  // which only layer-wise has work left: the unpack of the others' entries (2 bf16 copies of
  // at most every element, 1 ps per byte here), started once the last rank has published.
  for (const std::string strategy : {"canzona", "sc", "layerwise", "zero1"}) {
    for (const int dp : {2, 3, 4}) {
      SCOPED_TRACE(fmt::format("{} dp {}", strategy, dp));
      SyntheticCompute compute(offset_);
      const plan::StepPlan plan = build(strategy, dp, 1);
      const Projection p = project(plan, free_network(), compute);
      double busiest = 0;
      for (const RankTimeline& r : p.ranks) busiest = std::max(busiest, r.compute_busy);
      if (strategy == "layerwise") {
        std::int64_t elements = 0;
        for (const layout::Buffer& b : plan.layout.buffers) elements += b.total;
        EXPECT_GE(p.step_seconds, busiest * (1 - 1e-12));
        EXPECT_LE(p.step_seconds, busiest + 1e-12 * 4.0 * static_cast<double>(elements));
      } else {
        EXPECT_NEAR(p.step_seconds, busiest, 1e-9 * busiest);
      }
    }
  }
}

// Bytes the executor copies around the matrix steps of rank (d, t), derived here from each
// matrix's owner, host and shape rather than from the micro-groups the projector reads: every
// TP rank packs its fp32 shard of each sharded matrix its DP rank works on (8 bytes per element);
// a host assembles the whole matrix (8) and packs its direction shards (2 × the direction type);
// a TP-SC matrix is assembled on every rank, which keeps its own direction shard; an unsharded
// matrix's fragments of more than one row range are staged (gradient and parameter in, parameter
// back: 24).
double matrix_copy_bytes(const plan::StepPlan& plan, int d, int t) {
  const double direction =
      2.0 * static_cast<double>(comm::size_of(plan::direction_type(plan.options)));
  double bytes = 0;
  for (const plan::MatrixPlan& m : plan.matrices) {
    if (m.dp_owner != d && m.dp_owner != -1) continue;
    const auto local = static_cast<double>(m.local.rows * m.local.cols);
    const auto full = static_cast<double>(m.full.rows * m.full.cols);
    if (!m.sharded()) {
      for (const model::Fragment& f : m.fragments) {
        if (f.rows.size() > 1) bytes += 24 * static_cast<double>(f.numel());
      }
    } else if (m.tp_host == -1) {
      bytes += 8 * local + 8 * full + direction * local;
    } else {
      bytes += 8 * local + (m.tp_host == t ? 8 * full + direction * full : 0.0);
    }
  }
  return bytes;
}

// The executor's memory passes, derived here from the buffers rather than from the DP slots the
// projector reads: every kept gradient averaged in place (8 bytes per fp32 element), every
// stepped element published fp32 → bf16 (6), layer-wise's staging: its own entries packed and
// the others' unpacked (4 bytes per bf16 element each: every parameter once per rank), and the
// copies around the matrix steps (matrix_copy_bytes).
TEST_F(ProjectorTest, MemoryPassesAreTheExecutorsAverageCastAndStagingCopies) {
  for (const std::string strategy : {"canzona", "zero1", "sc", "layerwise"}) {
    for (const auto& [tp, split] :
         {std::pair{1, false}, std::pair{2, false}, std::pair{1, true}, std::pair{2, true}}) {
      const plan::StepPlan plan = build(strategy, 2, tp, split);
      SyntheticCompute compute(offset_);
      const Projection p = project(plan, free_network(), compute);
      double total = 0, entries = 0;  // buckets with their padding; the parameters alone
      for (const layout::Buffer& b : plan.layout.buffers) {
        for (const layout::Bucket& bucket : b.buckets) total += static_cast<double>(bucket.size());
        for (const layout::BufferEntry& e : b.entries) entries += static_cast<double>(e.numel());
      }
      double copies = 0;
      for (const RankTimeline& r : p.ranks) {
        SCOPED_TRACE(fmt::format("{} tp {} split {} rank {}", strategy, tp, split, r.rank));
        const auto stepped = static_cast<double>(plan::stepped_elements(plan, r.dp_rank));
        const double adamw = 1e-11 * static_cast<double>(plan::adamw_elements(plan, r.dp_rank));
        double bytes = matrix_copy_bytes(plan, r.dp_rank, r.tp_rank);
        copies += bytes;
        if (strategy == "canzona" || strategy == "zero1") bytes += 8 * stepped + 6 * stepped;
        if (strategy == "sc") bytes += 8 * total + 6 * total;  // all-reduce, all stepped
        if (strategy == "layerwise") bytes += 8 * total + 6 * stepped + 4 * entries;
        EXPECT_NEAR(r.phases.update, adamw + 1e-12 * bytes, 1e-15);
      }
      // TP moves shards through staging; split q, k, v are staged without TP.
      if (tp > 1 || split) {
        EXPECT_GT(copies, 0.0) << strategy << " tp " << tp;
      }
    }
  }
}

// Tiny buckets: a gradient average per bucket would be a task per bucket; the projector keeps at
// most eight runs of consecutive buckets per buffer, with the same bytes. DP-SC: every rank
// keeps (all-reduce) and steps everything, so every run has work on every rank.
TEST_F(ProjectorTest, ManyBucketsKeepAFewAverageTasksPerBuffer) {
  plan::StrategyOptions options;
  baselines::apply_strategy("sc", options);
  options.zero1.bucket_size = 4096;
  layout::ParallelConfig config;
  config.dp = 2;
  const plan::StepPlan plan = baselines::make_step_plan(
      canzona::testing::tiny_dense_model(
          {.hidden = 128, .ffn = 384, .layers = 12, .heads = 4, .kv_heads = 2, .head_dim = 32},
          "tiny-deep"),
      config, options);
  std::size_t buckets = 0, runs = 0;
  for (const layout::Buffer& b : plan.layout.buffers) {
    buckets += b.buckets.size();
    runs += std::min<std::size_t>(b.buckets.size(), 8);
  }
  ASSERT_GT(buckets, runs);
  SyntheticCompute compute(offset_);
  const Projection p = project(plan, free_network(), compute);
  // Per rank: every matrix step, AdamW, the averages, the publish.
  EXPECT_EQ(p.compute_tasks, static_cast<int>(2 * (plan.matrices.size() + 1 + runs + 1)));
  double total = 0;
  for (const layout::Buffer& b : plan.layout.buffers) {
    for (const layout::Bucket& bucket : b.buckets) total += static_cast<double>(bucket.size());
  }
  for (const RankTimeline& r : p.ranks) {
    const double adamw = 1e-11 * static_cast<double>(plan::adamw_elements(plan, r.dp_rank));
    EXPECT_NEAR(r.phases.update, adamw + 1e-12 * 14 * total, 1e-15);
  }
}

class EveryStrategyTest
    : public ProjectorTest,
      public ::testing::WithParamInterface<std::tuple<std::string, std::pair<int, int>>> {};

TEST_P(EveryStrategyTest, EveryRanksTimeAddsUpToTheStep) {
  const auto& [strategy, shape] = GetParam();
  const auto [dp, tp] = shape;
  SyntheticCompute compute(offset_);
  const Projection p = project(build(strategy, dp, tp), small_nodes(), compute);
  ASSERT_EQ(p.ranks.size(), static_cast<std::size_t>(dp * tp));
  EXPECT_GT(p.step_seconds, 0.0);
  for (const RankTimeline& r : p.ranks) {
    SCOPED_TRACE(fmt::format("rank {}", r.rank));
    const PhaseTimes& ph = r.phases;
    EXPECT_NEAR(ph.update + ph.compute, r.compute_busy, 1e-12);
    EXPECT_NEAR(ph.grad_sync + ph.tp_gather + ph.tp_scatter + ph.param_sync, r.comm_busy, 1e-12);
    EXPECT_LE(r.exposed_comm, r.comm_busy + 1e-12);
    EXPECT_GE(r.exposed_comm, -1e-12);
    // Kernels, exposed communication and waiting tile the step exactly.
    EXPECT_NEAR(r.compute_busy + r.exposed_comm + r.idle, p.step_seconds, 1e-9 * p.step_seconds);
    EXPECT_LE(r.end, p.step_seconds);
    EXPECT_LE(r.compute_end, p.straggler.compute_end);
  }
  EXPECT_EQ(p.straggler.rank, p.straggler_rank);
  EXPECT_LE(p.optimizer_seconds, p.step_seconds + 1e-15);
  EXPECT_GE(p.compute_imbalance, 1.0 - 1e-12);
  // Deterministic: the same plan projects to the same numbers.
  SyntheticCompute again(offset_);
  EXPECT_EQ(projection_json(project(build(strategy, dp, tp), small_nodes(), again), true),
            projection_json(p, true));
}

// Host ranks (comm_beside_compute false): a rank's collectives and kernels share its thread, so
// none of its communication hides behind a kernel, and kernels, communication and waiting tile
// the step. With two streams the TP collectives hide partly behind kernels; the DP sync hides
// on neither (the step syncs gradients before its kernels and parameters after them), so
// without TP both projections agree.
TEST_P(EveryStrategyTest, OneThreadHidesNoCommunication) {
  const auto& [strategy, shape] = GetParam();
  const auto [dp, tp] = shape;
  const plan::StepPlan plan = build(strategy, dp, tp);
  ProjectionOptions options;
  options.comm_beside_compute = false;
  SyntheticCompute compute(offset_), beside_compute(offset_);
  const Projection p = project(plan, small_nodes(), compute, options);
  const Projection beside = project(plan, small_nodes(), beside_compute);
  double hidden_beside = 0, update_beside = 0;
  for (const RankTimeline& r : beside.ranks) {
    hidden_beside += r.comm_busy - r.exposed_comm;
    update_beside += r.phases.update;
  }
  const bool micro_groups = std::any_of(plan.micro_groups.begin(), plan.micro_groups.end(),
                                        [](const auto& groups) { return !groups.empty(); });
  if (micro_groups) {
    EXPECT_GT(hidden_beside, 0.0);
  } else {
    // Without micro-groups (no TP, or TP-SC, whose steps wait for every all-gather, as in the
    // executor) only element-wise work (a slot's gradient average while the next slot travels,
    // AdamW while the matrix buffers' sync does) runs beside a collective.
    EXPECT_LE(hidden_beside, update_beside + 1e-12);
  }
  EXPECT_GE(p.step_seconds, beside.step_seconds - 1e-12);
  ASSERT_EQ(p.ranks.size(), beside.ranks.size());
  for (std::size_t i = 0; i < p.ranks.size(); ++i) {
    const RankTimeline& r = p.ranks[i];
    SCOPED_TRACE(fmt::format("rank {}", r.rank));
    EXPECT_NEAR(r.exposed_comm, r.comm_busy, 1e-12);
    EXPECT_NEAR(r.compute_busy + r.comm_busy + r.idle, p.step_seconds, 1e-9 * p.step_seconds);
    // The same kernels and collectives, only placed differently.
    EXPECT_NEAR(r.compute_busy, beside.ranks[i].compute_busy, 1e-12);
    EXPECT_NEAR(r.comm_busy, beside.ranks[i].comm_busy, 1e-12);
  }
}

// The same with many micro-groups (one matrix per host): the next group's gather is in flight
// while a group computes, the overlap two streams give and one thread cannot.
TEST_F(ProjectorTest, OneThreadRunsAPipelinesGathersBetweenItsKernels) {
  Topology t = topology_preset("dgx-h100");
  t.intra_node.busbw_gbps = {1, 1, 1, 1, 1};  // TP traffic as costly as compute
  plan::StrategyOptions strategy;
  strategy.tp_schedule = plan::MicroGroupMode::kSingle;
  for (const int dp : {1, 2}) {
    SCOPED_TRACE(fmt::format("dp {}", dp));
    const plan::StepPlan plan =
        baselines::make_step_plan(tiny_model(), {.dp = dp, .tp = 2}, strategy);
    ASSERT_GE(plan.micro_groups[0].size(), 2u);
    ProjectionOptions options;
    options.comm_beside_compute = false;
    SyntheticCompute compute(offset_), beside_compute(offset_);
    const Projection p = project(plan, t, compute, options);
    const Projection beside = project(plan, t, beside_compute);
    EXPECT_GT(p.step_seconds, beside.step_seconds);
    for (const RankTimeline& r : p.ranks) {
      SCOPED_TRACE(fmt::format("rank {}", r.rank));
      EXPECT_NEAR(r.exposed_comm, r.comm_busy, 1e-12);
      EXPECT_NEAR(r.compute_busy + r.comm_busy + r.idle, p.step_seconds, 1e-9 * p.step_seconds);
    }
  }
}

// ASC: every micro-group has a matrix on each TP rank. On one thread a rank posts the next
// group's gather, then steps its own matrix; each rank's part of the gather moves once it waits
// and its peer has posted and waited since, so the two ranks' steps of one group run at the same
// time, never one rank's after the other's.
TEST_F(ProjectorTest, OneThreadStepsBothRanksMatricesOfAGroupAtOnce) {
  Topology t = topology_preset("dgx-h100");
  t.intra_node.busbw_gbps = {1, 1, 1, 1, 1};  // TP traffic as costly as compute
  const plan::StepPlan plan = build("asc", 1, 2);
  ASSERT_GE(plan.micro_groups[0].size(), 3u);
  for (const plan::MicroGroupPlan& g : plan.micro_groups[0]) {
    ASSERT_FALSE(g.slots[0].empty());
    ASSERT_FALSE(g.slots[1].empty());
  }
  ProjectionOptions options;
  options.comm_beside_compute = false;
  SyntheticCompute compute(offset_);
  const Projection p = project(plan, t, compute, options);
  ASSERT_EQ(p.ranks.size(), 2u);
  const double one_after_the_other =
      p.ranks[0].compute_busy + p.ranks[1].compute_busy + p.ranks[0].comm_busy;
  EXPECT_LT(p.step_seconds, 0.9 * one_after_the_other);
}

// ASC on one thread over a free network: a rank posts each group's gather before it steps the
// group before, so the rank with the smaller matrix of a group goes on to the next group while
// its peer still steps (MPI moves the gather's data whenever the peer waits, for whichever of its
// collectives). The step then costs about the busier rank's own steps, not every group's slower
// rank in turn, as when the two had to wait for each other at every gather.
TEST_F(ProjectorTest, OneThreadLetsARankRunAheadOfItsPeer) {
  const plan::StepPlan plan = build("asc", 1, 2);
  ProjectionOptions options;
  options.comm_beside_compute = false;
  SyntheticCompute compute(offset_);
  const Projection p = project(plan, free_network(), compute, options);
  ASSERT_EQ(p.ranks.size(), 2u);
  std::array<double, 2> steps{};  // each rank's matrix steps
  double lockstep = 0;            // every group at its slower rank's steps
  for (const plan::MicroGroupPlan& g : plan.micro_groups[0]) {
    double slower = 0;
    for (std::size_t t = 0; t < 2; ++t) {
      double seconds = 0;
      for (const std::size_t m : g.slots[t]) {
        for (const model::Fragment& f : plan.matrices[m].fragments) {
          seconds += 1e-8 * static_cast<double>(f.numel()) + offset_;
        }
      }
      steps[t] += seconds;
      slower = std::max(slower, seconds);
    }
    lockstep += slower;
  }
  const double busier = std::max(steps[0], steps[1]);
  ASSERT_GT(lockstep, 1.1 * busier);  // the groups' slower rank alternates
  double busiest = 0;
  for (const RankTimeline& r : p.ranks) {
    EXPECT_NEAR(r.phases.compute, steps[static_cast<std::size_t>(r.tp_rank)], 1e-12);
    busiest = std::max(busiest, r.compute_busy);
  }
  EXPECT_GE(p.step_seconds, busiest);
  // Waiting for each other at every gather would cost at least `lockstep` in matrix steps alone.
  EXPECT_LT(p.step_seconds, busier + 0.5 * (lockstep - busier));
}

INSTANTIATE_TEST_SUITE_P(
    Plans, EveryStrategyTest,
    ::testing::Combine(::testing::Values("canzona", "sc", "layerwise", "zero1", "asc"),
                       ::testing::Values(std::pair{1, 2}, std::pair{2, 1}, std::pair{4, 1},
                                         std::pair{2, 2}, std::pair{3, 2})),
    [](const auto& param) {
      return fmt::format("{}_dp{}_tp{}", std::get<0>(param.param), std::get<1>(param.param).first,
                         std::get<1>(param.param).second);
    });

TEST_F(ProjectorTest, CanzonaBeatsRedundantComputeWhenComputeDominates) {
  SyntheticCompute compute(offset_);
  const Topology t = topology_preset("dgx-h100");
  const Projection canzona = project(build("canzona", 4, 2), t, compute);
  const Projection sc = project(build("sc", 4, 2), t, compute);
  EXPECT_LT(canzona.step_seconds, sc.step_seconds);
  EXPECT_LT(canzona.straggler.phases.compute, sc.straggler.phases.compute);
  EXPECT_NEAR(sc.compute_imbalance, 1.0, 1e-12);  // everyone computes everything
}

TEST_F(ProjectorTest, GradSyncCostsWhatTheCollectiveModelSays) {
  // DP-SC over 4 ranks in 2 nodes: every grad-sync collective is costed on its whole group.
  const plan::StepPlan plan = build("sc", 4, 1);
  const Topology t = small_nodes();
  SyntheticCompute compute(offset_);
  const Projection p = project(plan, t, compute);
  std::vector<std::vector<plan::PlannedCollective>> per_rank;
  for (int d = 0; d < 4; ++d) per_rank.push_back(plan::rank_collectives(plan, d, 0));
  const GroupPlacement placement = place_group(std::vector<int>{0, 1, 2, 3}, t.gpus_per_node);
  double expected = 0;
  for (std::size_t i = 0; i < per_rank[0].size(); ++i) {
    const plan::PlannedCollective& c = per_rank[0][i];
    if (c.phase != plan::Phase::kGradSync) continue;
    double bus = 0;
    for (const auto& rank : per_rank) {
      bus = std::max({bus, static_cast<double>(rank[i].bytes_sent),
                      static_cast<double>(rank[i].bytes_received)});
    }
    expected += estimate_collective(t, collective_class_of(c.op), bus, placement).seconds;
  }
  ASSERT_GT(expected, 0.0);
  for (const RankTimeline& r : p.ranks) EXPECT_NEAR(r.phases.grad_sync, expected, 1e-12);
}

TEST_F(ProjectorTest, UnevenCollectivesAreGroupedBroadcastsOrPaddedRings) {
  // Canzona's cuts give uneven parts. Grouped: a broadcast of the whole array S; padded: the
  // even collective on n × the largest part. Parts are recovered from the members' bytes.
  const plan::StepPlan plan = build("canzona", 4, 1);
  const Topology t = small_nodes();
  SyntheticCompute compute(offset_);
  ProjectionOptions padded_options;
  padded_options.uneven = UnevenCollectives::kPadded;
  const Projection grouped = project(plan, t, compute);
  const Projection padded = project(plan, t, compute, padded_options);
  EXPECT_EQ(grouped.uneven, UnevenCollectives::kGroupedRooted);
  EXPECT_EQ(padded.uneven, UnevenCollectives::kPadded);

  std::vector<std::vector<plan::PlannedCollective>> per_rank;
  for (int d = 0; d < 4; ++d) per_rank.push_back(plan::rank_collectives(plan, d, 0));
  const GroupPlacement placement = place_group(std::vector<int>{0, 1, 2, 3}, t.gpus_per_node);
  double expect_grouped = 0, expect_padded = 0;
  int uneven = 0;
  for (std::size_t i = 0; i < per_rank[0].size(); ++i) {
    const plan::PlannedCollective& c = per_rank[0][i];
    if (c.phase != plan::Phase::kGradSync) continue;
    ASSERT_EQ(c.op, "reduce_scatter");
    double total = 0, largest = 0, smallest = 1e300;
    for (const auto& rank : per_rank) {
      const double part = static_cast<double>(rank[i].bytes_received) / 3;
      total += part;
      largest = std::max(largest, part);
      smallest = std::min(smallest, part);
    }
    if (largest == smallest) {
      const double even =
          estimate_collective(t, CollectiveClass::kReduceScatter, 3 * largest, placement).seconds;
      expect_grouped += even;
      expect_padded += even;
      continue;
    }
    ++uneven;
    expect_grouped += estimate_collective(t, CollectiveClass::kBroadcast, total, placement).seconds;
    expect_padded +=
        estimate_collective(t, CollectiveClass::kReduceScatter, 3 * largest, placement).seconds;
  }
  EXPECT_GT(uneven, 0) << "the test needs at least one uneven bucket";
  EXPECT_NEAR(grouped.ranks[0].phases.grad_sync, expect_grouped, 1e-12);
  EXPECT_NEAR(padded.ranks[0].phases.grad_sync, expect_padded, 1e-12);
  EXPECT_EQ(parse_uneven_collectives("padded"), UnevenCollectives::kPadded);
  EXPECT_THROW(parse_uneven_collectives("sometimes"), ConfigError);
}

// Serial TP execution (Megatron-Canzona's executor): nothing overlaps inside the TP pipeline,
// so on a slow network the step is at least the pipelined one, and every gather starts after
// the previous group's scatter.
TEST_F(ProjectorTest, SerialTpExecutionWaitsForEachMicroGroup) {
  SyntheticCompute compute(offset_);
  Topology t = topology_preset("dgx-h100");
  t.intra_node.busbw_gbps = {1, 1, 1, 1, 1};  // TP traffic as costly as compute
  plan::StrategyOptions options;
  options.tp_schedule = plan::MicroGroupMode::kSingle;  // one matrix per host: many groups
  layout::ParallelConfig config;
  config.dp = 1;
  config.tp = 2;
  const plan::StepPlan pipelined = baselines::make_step_plan(tiny_model(), config, options);
  options.tp_execution = plan::TpExecution::kSerial;
  const plan::StepPlan serial = baselines::make_step_plan(tiny_model(), config, options);
  ASSERT_GT(serial.micro_groups[0].size(), 2u);
  const Projection p = project(pipelined, t, compute);
  const Projection s = project(serial, t, compute);
  EXPECT_GT(s.step_seconds, p.step_seconds);
  // The same work and bytes, only the order and the overlap differ.
  EXPECT_EQ(s.collectives, p.collectives);
  EXPECT_EQ(s.compute_tasks, p.compute_tasks);
  EXPECT_NEAR(s.straggler.phases.compute, p.straggler.phases.compute, 1e-12);
}

TEST_F(ProjectorTest, JsonIsLabelledAsAProjection) {
  SyntheticCompute compute(offset_);
  const nlohmann::json j = projection_json(project(build("canzona", 2, 2), small_nodes(), compute));
  EXPECT_EQ(j["projection"], true);
  EXPECT_EQ(j["topology"], "small-nodes");
  EXPECT_EQ(j["strategy"], "canzona");
  EXPECT_EQ(j["uneven_collectives"], "grouped");
  for (const std::string_view phase : phase_names()) {
    EXPECT_TRUE(j["phases"].contains(std::string(phase))) << phase;
  }
  EXPECT_TRUE(j["phases"].contains("exposed_comm"));
  EXPECT_FALSE(j.contains("ranks"));
}

// The tiny model with 4 experts of 64 rows per layer: identical expert shapes, as in Qwen3 MoE.
model::ModelSpec tiny_moe_model() {
  model::ModelSpec m = tiny_model();
  m.name = m.display_name = "tiny-moe";
  m.num_experts = 4;
  m.moe_intermediate_size = 64;
  m.experts_per_token = 2;
  return m;
}

plan::StepPlan build_with(const model::ModelSpec& spec, const std::string& strategy, int dp, int tp,
                          plan::TpExecution execution = plan::TpExecution::kPipelined) {
  plan::StrategyOptions options;
  baselines::apply_strategy(strategy, options);
  options.tp_execution = execution;
  layout::ParallelConfig config;
  config.dp = dp;
  config.tp = tp;
  return baselines::make_step_plan(spec, config, options);
}

// Grouping identical DP ranks must not change a single bit of the projection: every rank's
// timeline, the step, the straggler and every count.
class GroupingTest
    : public ProjectorTest,
      public ::testing::WithParamInterface<std::tuple<std::string, std::pair<int, int>>> {};

TEST_P(GroupingTest, GroupedProjectionEqualsEveryRankSimulated) {
  const auto& [strategy, shape] = GetParam();
  const auto [dp, tp] = shape;
  for (const bool moe : {false, true}) {
    for (const auto execution : {plan::TpExecution::kPipelined, plan::TpExecution::kSerial}) {
      const plan::StepPlan plan =
          build_with(moe ? tiny_moe_model() : tiny_model(), strategy, dp, tp, execution);
      for (const Topology& topology : {small_nodes(), topology_preset("dgx-h100")}) {
        for (const auto uneven : {UnevenCollectives::kGroupedRooted, UnevenCollectives::kPadded}) {
          for (const bool beside : {true, false}) {
            SCOPED_TRACE(fmt::format("{} {} {} {} comm beside compute {}", moe ? "moe" : "dense",
                                     to_string(execution), topology.name, to_string(uneven),
                                     beside));
            ProjectionOptions options;
            options.uneven = uneven;
            options.comm_beside_compute = beside;
            SyntheticCompute grouped_compute(offset_), every_compute(offset_);
            const Projection grouped = project(plan, topology, grouped_compute, options);
            options.group_identical_ranks = false;
            const Projection every = project(plan, topology, every_compute, options);
            EXPECT_EQ(projection_json(grouped, true), projection_json(every, true));
            EXPECT_EQ(grouped.step_seconds, every.step_seconds);
            EXPECT_EQ(grouped.optimizer_seconds, every.optimizer_seconds);
          }
        }
      }
    }
  }
}

// One prepared timeline projected with compute models in any order (the GEMM-efficiency band of
// `project`) gives what a projection from scratch gives with each.
TEST_P(GroupingTest, PreparedProjectionEqualsProjectionWithEveryComputeModel) {
  const auto& [strategy, shape] = GetParam();
  const auto [dp, tp] = shape;
  for (const bool moe : {false, true}) {
    const plan::StepPlan plan = build_with(moe ? tiny_moe_model() : tiny_model(), strategy, dp, tp,
                                           plan::TpExecution::kPipelined);
    const Topology topology = small_nodes();
    PreparedProjection prepared(plan, topology);
    for (const double scale : {3.0, 0.25, 3.0}) {
      SCOPED_TRACE(fmt::format("{} scale {}", moe ? "moe" : "dense", scale));
      SyntheticCompute once(offset_ * scale), fresh(offset_ * scale);
      EXPECT_EQ(projection_json(prepared.project(once), true),
                projection_json(project(plan, topology, fresh), true));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Plans, GroupingTest,
    ::testing::Combine(::testing::Values("canzona", "sc", "layerwise", "zero1", "asc", "canzona+sc",
                                         "sc+canzona", "sc+asc"),
                       ::testing::Values(std::pair{1, 2}, std::pair{4, 1}, std::pair{3, 2},
                                         std::pair{4, 2}, std::pair{2, 2})),
    [](const auto& param) {
      std::string name = std::get<0>(param.param);
      std::replace(name.begin(), name.end(), '+', '_');
      return fmt::format("{}_dp{}_tp{}", name, std::get<1>(param.param).first,
                         std::get<1>(param.param).second);
    });

TEST_F(ProjectorTest, DpCollectiveSlotsAreWhatEveryRankIssues) {
  for (const std::string strategy : {"canzona", "sc", "layerwise", "zero1", "asc"}) {
    for (const auto& [dp, tp] : {std::pair{4, 1}, std::pair{3, 2}, std::pair{2, 2}}) {
      SCOPED_TRACE(fmt::format("{} dp {} tp {}", strategy, dp, tp));
      const plan::StepPlan plan = build_with(tiny_moe_model(), strategy, dp, tp);
      const std::vector<plan::DpCollectiveSlot> slots = plan::dp_collective_slots(plan);
      for (int d = 0; d < dp; ++d) {
        for (int t = 0; t < tp; ++t) {
          std::vector<plan::PlannedCollective> expected = plan::rank_collectives(plan, d, t);
          const std::vector<plan::PlannedCollective> tp_part = plan::tp_collectives(plan, d, t);
          std::vector<plan::PlannedCollective> got;
          for (const plan::DpCollectiveSlot& s : slots) {
            if (s.collective.phase != plan::Phase::kGradSync) continue;
            got.push_back(s.collective);
          }
          got.insert(got.end(), tp_part.begin(), tp_part.end());
          for (const plan::DpCollectiveSlot& s : slots) {
            if (s.collective.phase == plan::Phase::kGradSync) continue;
            got.push_back(s.collective);
          }
          ASSERT_EQ(got.size(), expected.size());
          std::size_t k = 0;  // index into slots of the DP collective got[i] came from
          for (std::size_t i = 0; i < got.size(); ++i) {
            const plan::PlannedCollective& e = expected[i];
            plan::PlannedCollective g = got[i];
            if (g.group == plan::Group::kDp) {
              while (slots[k].collective.phase != g.phase ||
                     slots[k].collective.buffer != g.buffer ||
                     slots[k].collective.bucket != g.bucket) {
                ++k;
              }
              g.bytes_sent = slots[k].bytes_sent[static_cast<std::size_t>(d)];
              g.bytes_received = slots[k].bytes_received[static_cast<std::size_t>(d)];
            }
            EXPECT_EQ(g.op, e.op) << i;
            EXPECT_EQ(g.phase, e.phase) << i;
            EXPECT_EQ(g.group, e.group) << i;
            EXPECT_EQ(g.dtype, e.dtype) << i;
            EXPECT_EQ(g.count, e.count) << i;
            EXPECT_EQ(g.bytes_sent, e.bytes_sent) << i;
            EXPECT_EQ(g.bytes_received, e.bytes_received) << i;
            EXPECT_EQ(g.buffer, e.buffer) << i;
            EXPECT_EQ(g.bucket, e.bucket) << i;
            EXPECT_EQ(g.micro_group, e.micro_group) << i;
            EXPECT_EQ(g.matrix, e.matrix) << i;
          }
        }
      }
    }
  }
}

TEST_F(ProjectorTest, IdenticalShapesAreCostedOnce) {
  const plan::StepPlan plan = build_with(tiny_moe_model(), "sc", 4, 2);
  SyntheticCompute compute(offset_);
  project(plan, small_nodes(), compute);
  std::set<std::pair<std::int64_t, std::int64_t>> shapes;
  for (const plan::MatrixPlan& m : plan.matrices) {
    for (const model::Fragment& f : m.fragments) shapes.insert({f.shape[0], f.shape[1]});
  }
  // Every matrix shape once, and one AdamW slice (every DP-SC rank steps all AdamW elements).
  EXPECT_EQ(compute.calls, static_cast<int>(shapes.size()) + 1);
}

}  // namespace
}  // namespace canzona::sim
