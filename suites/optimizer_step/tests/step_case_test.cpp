// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The suite's cases and names, and the reduction over ranks that every measured row reports.
#include "step_case.hpp"
#include "rank_stats.hpp"

#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <set>

namespace canzona::bench::step {
namespace {

CaseGrid grid() {
  CaseGrid g;
  g.optimizers = {"muon", "soap"};
  g.strategies = {"canzona", "layerwise"};
  g.models = {"qwen3-0.6b~d16"};
  g.projected_models = {"qwen3-32b", "qwen3-30b-a3b"};
  g.projected_gpus = {2, 8, 256};
  return g;
}

TEST(StepCaseTest, NamesFollowTheSuitePattern) {
  StepCase c{"muon", "canzona+sc", "qwen3-8b~d32", 2, 2, false};
  EXPECT_EQ(benchmark_name(c), "OptimizerStep/muon/canzona+sc/qwen3-8b~d32/gpus:4/dp:2/tp:2");
  c.projected = true;
  EXPECT_EQ(benchmark_name(c),
            "OptimizerStep/muon/canzona+sc/qwen3-8b~d32/gpus:4/dp:2/tp:2/projected");
}

TEST(StepCaseTest, MeasuredRowsCoverEveryDpTpOfTheRanks) {
  for (const int ranks : {1, 2, 4}) {
    SCOPED_TRACE(ranks);
    const std::vector<StepCase> cases = measured_cases(grid(), ranks);
    std::set<std::pair<int, int>> shapes;
    for (const StepCase& c : cases) {
      EXPECT_EQ(c.gpus(), ranks);
      EXPECT_FALSE(c.projected);
      shapes.insert({c.dp, c.tp});
    }
    // Qwen3-0.6B allows tp 1, 2, 4, 8: every factorisation of the ranks.
    const std::size_t factorisations = ranks == 1 ? 1 : ranks == 2 ? 2 : 3;
    EXPECT_EQ(shapes.size(), factorisations);
    EXPECT_EQ(cases.size(), 2 * 2 * factorisations);
  }
}

TEST(StepCaseTest, ProjectedRowsStartAboveTheRanksAndUseAValidTp) {
  const std::vector<StepCase> cases = projected_cases(grid(), 4);
  ASSERT_FALSE(cases.empty());
  for (const StepCase& c : cases) {
    EXPECT_TRUE(c.projected);
    EXPECT_GT(c.gpus(), 4);
    // Qwen3-30B-A3B has 4 KV heads: tp 8 is invalid, so its rows use tp 4.
    EXPECT_EQ(c.tp, c.model == "qwen3-30b-a3b" ? 4 : 8) << c.model;
  }
  EXPECT_EQ(cases.size(), 2u * 2 * 2 * 2);  // optimizers x strategies x models x {8, 256}
  CaseGrid bad = grid();
  bad.models = {"qwen3-0.6b~d3"};
  EXPECT_THROW(measured_cases(bad, 2), ConfigError);
}

TEST(RankStatsTest, SpreadNamesTheStraggler) {
  const std::vector<double> times = {2.0, 5.0, 1.0, 5.0};
  const RankSpread s = spread(times);
  EXPECT_EQ(s.max, 5.0);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.mean, 3.25);
  EXPECT_EQ(s.max_rank, 1);  // the lowest rank holding the maximum
  EXPECT_EQ(spread(std::vector<double>{}).max, 0.0);
}

}  // namespace
}  // namespace canzona::bench::step
