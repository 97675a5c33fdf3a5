// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The end-to-end suite's names through bench::parse_benchmark_name (the parser compare,
// table and validate use) and back, its case grid, and the relations of a projected iteration.
#include "e2e_case.hpp"
#include "iteration_projection.hpp"

#include <canzona/bench/benchmark_name.hpp>
#include <canzona/core/error.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <random>

namespace {

namespace e2e = canzona::bench::e2e;
namespace step = canzona::bench::step;

TEST(E2ECase, NamesRoundTripThroughTheOneParser) {
  const std::uint64_t seed = canzona::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int i = 0; i < 50; ++i) {
    e2e::E2ECase c;
    c.step = {i % 2 ? "muon" : "soap",
              i % 3 ? "canzona" : "canzona+sc",
              i % 2 ? "qwen3-8b~d32" : "qwen3-32b",
              pick(1, 64),
              1 << pick(0, 3),
              i % 4 == 0};
    c.seq = pick(1, 8192);
    c.mbs = pick(1, 16);
    const std::string name = e2e::benchmark_name(c);
    SCOPED_TRACE(name + " CANZONA_TEST_SEED=" + std::to_string(seed));
    const canzona::bench::BenchmarkName parsed = canzona::bench::parse_benchmark_name(name);
    EXPECT_EQ(parsed.family, "E2EIteration");
    EXPECT_EQ(parsed.projected, c.step.projected);
    EXPECT_EQ(*parsed.gpus, c.step.gpus());
    const e2e::E2ECase back = e2e::parse_case(name + "/manual_time");
    EXPECT_EQ(back.step.optimizer, c.step.optimizer);
    EXPECT_EQ(back.step.strategy, c.step.strategy);
    EXPECT_EQ(back.step.model, c.step.model);
    EXPECT_EQ(back.step.dp, c.step.dp);
    EXPECT_EQ(back.step.tp, c.step.tp);
    EXPECT_EQ(back.step.projected, c.step.projected);
    EXPECT_EQ(back.seq, c.seq);
    EXPECT_EQ(back.mbs, c.mbs);
    EXPECT_EQ(e2e::benchmark_name(back), name);
  }
}

TEST(E2ECase, RefusesOtherFamiliesAndMissingShapes) {
  EXPECT_THROW(e2e::parse_case("OptimizerStep/muon/canzona/qwen3-8b/gpus:2/dp:2/tp:1"),
               canzona::ConfigError);
  EXPECT_THROW(e2e::parse_case("E2EIteration/muon/canzona/qwen3-8b/gpus:2/dp:2/tp:1/seq:8"),
               canzona::ConfigError);
  EXPECT_THROW(e2e::parse_case("E2EIteration/muon/canzona/qwen3-8b/gpus:2/dp:2/tp:1/seq:0/mbs:1"),
               canzona::ConfigError);
}

TEST(E2ECase, GridIsTheStepGridTimesShapes) {
  e2e::E2EGrid grid;
  grid.step.optimizers = {"muon"};
  grid.step.strategies = {"canzona", "layerwise"};
  grid.step.models = {"qwen3-0.6b~d16"};
  grid.step.projected_models = {"qwen3-8b"};
  grid.step.projected_gpus = {2, 256};
  grid.seq = {16, 32};
  grid.mbs = {1};
  const auto measured = e2e::measured_cases(grid, 2);
  // (dp, tp) = (2, 1), (1, 2) per strategy, two sequence lengths each.
  ASSERT_EQ(measured.size(), 2u * 2u * 2u);
  grid.tp = {2};
  EXPECT_EQ(e2e::measured_cases(grid, 2).size(), 2u * 2u);
  const auto projected = e2e::projected_cases(grid, 2);
  ASSERT_EQ(projected.size(), 2u);  // 256 GPUs only: 2 are measured
  for (const e2e::E2ECase& c : projected) {
    EXPECT_TRUE(c.step.projected);
    EXPECT_EQ(c.step.gpus(), 256);
    EXPECT_EQ(c.seq, grid.projected_seq);
    EXPECT_EQ(c.mbs, grid.projected_mbs);
  }
}

step::ProjectedStep fake_step(double step_seconds, double optimizer_seconds) {
  step::ProjectedStep s;
  s.step_seconds = step_seconds;
  s.optimizer_seconds = optimizer_seconds;
  s.topology = "dgx-h100";
  s.compute = "cost_model";
  return s;
}

TEST(IterationProjection, AddsItsPartsAndScalesWithTokens) {
  e2e::E2ECase c;
  c.step = {"muon", "canzona", "qwen3-8b", 32, 8, true};
  c.seq = 2048;
  c.mbs = 4;
  const e2e::ProjectedIteration one =
      e2e::project_iteration(c, fake_step(0.1, 0.02), "dgx-h100", 1);
  const e2e::IterationCounters& k = one.counters;
  EXPECT_DOUBLE_EQ(k.iteration_seconds, k.forward_seconds + k.backward_seconds +
                                            *k.tp_comm_seconds + k.optimizer_exposed_seconds +
                                            *k.dp_sync_exposed_seconds);
  EXPECT_DOUBLE_EQ(k.backward_seconds, 2 * k.forward_seconds);
  EXPECT_GT(*k.tp_comm_seconds, 0);
  EXPECT_DOUBLE_EQ(k.optimizer_exposed_seconds, 0.02);
  // Twice the micro-batches: twice the compute and TP traffic, the same step.
  const e2e::ProjectedIteration two =
      e2e::project_iteration(c, fake_step(0.1, 0.02), "dgx-h100", 2);
  EXPECT_NEAR(two.counters.forward_seconds, 2 * k.forward_seconds, 1e-15);
  EXPECT_NEAR(*two.counters.tp_comm_seconds, 2 * *k.tp_comm_seconds, 1e-15);
  // DP sync longer than the window it hides in is exposed by the excess.
  const e2e::ProjectedIteration slow =
      e2e::project_iteration(c, fake_step(100.0, 0.02), "dgx-h100", 1);
  EXPECT_NEAR(*slow.counters.dp_sync_exposed_seconds,
              100.0 - 0.02 - (k.forward_seconds + k.backward_seconds), 1e-9);
  // tp = 1 has no TP all-reduces.
  c.step.tp = 1;
  c.step.dp = 256;
  EXPECT_EQ(
      *e2e::project_iteration(c, fake_step(0.1, 0.02), "dgx-h100", 1).counters.tp_comm_seconds, 0);
}

}  // namespace
