// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What validate rejects in optimizer-step rows: a projected row that could pass for a
// measurement (or the reverse), phases that do not add up to the step, malformed names.
#include "step_row_check.hpp"

#include <gtest/gtest.h>

namespace canzona::harness {
namespace {

BenchmarkRow measured_row() {
  BenchmarkRow row;
  row.name = "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1/manual_time";
  row.run_type = "iteration";
  row.iterations = 10;
  row.real_time = 10.0;
  row.time_unit = "ms";
  row.counters = {{"projected", 0},    {"grad_sync_ms", 2.0},  {"tp_gather_ms", 0.0},
                  {"compute_ms", 5.0}, {"tp_scatter_ms", 0.0}, {"param_sync_ms", 2.0},
                  {"update_ms", 0.9},  {"other_ms", 0.1},      {"idle_ms", 1.0}};
  row.label = "plan_hash=0123456789abcdef options=dp=canzona seed=1 backend=cpu";
  return row;
}

BenchmarkRow projected_row() {
  BenchmarkRow row;
  row.name = "OptimizerStep/muon/canzona/qwen3-32b/gpus:256/dp:32/tp:8/projected/manual_time";
  row.real_time = 57.8;
  row.time_unit = "ms";
  row.counters = {{"projected", 1}};
  row.label = "projected topology=dgx-h100 compute=cost_model plan_hash=0123456789abcdef";
  return row;
}

TEST(StepRowCheckTest, AcceptsWellFormedRows) {
  EXPECT_EQ(check_step_row(measured_row()), std::nullopt);
  EXPECT_EQ(check_step_row(projected_row()), std::nullopt);
}

TEST(StepRowCheckTest, ProjectedAndMeasuredCannotBeMistakenForEachOther) {
  BenchmarkRow row = measured_row();
  row.counters["projected"] = 1;
  EXPECT_NE(check_step_row(row), std::nullopt);
  row.counters.erase("projected");
  EXPECT_NE(check_step_row(row), std::nullopt);

  BenchmarkRow projected = projected_row();
  projected.counters["projected"] = 0;
  EXPECT_NE(check_step_row(projected), std::nullopt);
  projected = projected_row();
  projected.label = "plan_hash=0123456789abcdef";
  const auto problem = check_step_row(projected);
  ASSERT_NE(problem, std::nullopt);
  EXPECT_NE(problem->find("projected topology="), std::string::npos) << *problem;
  projected.label = "projected topology= compute=cost_model";
  EXPECT_NE(check_step_row(projected), std::nullopt);
}

TEST(StepRowCheckTest, PhasesMustAddUpToTheStep) {
  BenchmarkRow row = measured_row();
  row.counters["compute_ms"] = 2.0;  // the phases now cover 7 of 10 ms
  const auto problem = check_step_row(row);
  ASSERT_NE(problem, std::nullopt);
  EXPECT_NE(problem->find("add up"), std::string::npos) << *problem;
  row = measured_row();
  row.counters["compute_ms"] = 8.0;  // 13 ms of phases in a 10 ms step
  EXPECT_NE(check_step_row(row), std::nullopt);
  row = measured_row();
  row.counters["compute_ms"] = 5.2;  // slots that overlap: they exceed the step, other < 0
  row.counters["other_ms"] = -0.1;
  const auto overlap = check_step_row(row);
  ASSERT_NE(overlap, std::nullopt);
  EXPECT_NE(overlap->find("overlap"), std::string::npos) << *overlap;
  row = measured_row();
  row.counters.erase("update_ms");
  EXPECT_NE(check_step_row(row), std::nullopt);
  row = measured_row();
  row.counters["idle_ms"] = 11.0;  // idle is part of the phases
  EXPECT_NE(check_step_row(row), std::nullopt);
  // Spreads and medians (taken counter by counter) do not add up and are not checked; a spread
  // of a constant counter may even be missing (Google Benchmark writes 0/0 as NaN).
  for (const char* aggregate : {"_stddev", "_cv", "_median"}) {
    row = measured_row();
    row.name += aggregate;
    row.counters["compute_ms"] = 0.1;
    if (std::string(aggregate) != "_median") row.counters.erase("projected");
    EXPECT_EQ(check_step_row(row), std::nullopt) << aggregate;
  }
  row = measured_row();
  row.name += "_mean";
  row.counters["compute_ms"] = 0.1;
  EXPECT_NE(check_step_row(row), std::nullopt);
}

TEST(StepRowCheckTest, NamesMustParse) {
  BenchmarkRow row = measured_row();
  row.name = "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:3/dp:2/tp:1/manual_time";
  EXPECT_NE(check_step_row(row), std::nullopt);
}

}  // namespace
}  // namespace canzona::harness
