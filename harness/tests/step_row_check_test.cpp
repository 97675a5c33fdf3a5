// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What validate rejects in measured optimizer-step rows: a row that could pass for a
// projection, phases that do not add up to the step, malformed names.
#include "step_row_check.hpp"

#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

namespace canzona::harness {
namespace {

bench::BenchmarkRow measured_row() {
  bench::BenchmarkRow row;
  row.name = "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1/manual_time";
  row.run_name = row.name;
  row.run_type = "iteration";
  row.iterations = 10;
  row.real_time = 10.0;
  row.time_unit = "ms";
  row.counters = {{"projected", 0},    {"grad_sync_ms", 2.0},  {"tp_gather_ms", 0.0},
                  {"compute_ms", 5.0}, {"tp_scatter_ms", 0.0}, {"param_sync_ms", 2.0},
                  {"update_ms", 0.9},  {"other_ms", 0.1},      {"idle_ms", 1.0}};
  row.label = "plan_hash=0123456789abcdef;options=;seed=1";
  return row;
}

bench::BenchmarkRow aggregate_of(bench::BenchmarkRow row, const std::string& aggregate) {
  row.name += "_" + aggregate;
  row.run_type = "aggregate";
  row.aggregate_name = aggregate;
  return row;
}

TEST(StepRowCheckTest, AcceptsWellFormedRows) {
  EXPECT_EQ(check_step_row(measured_row()), std::nullopt);
  bench::BenchmarkRow projected;
  projected.name = "OptimizerStep/muon/canzona/qwen3-32b/gpus:256/dp:32/tp:8/projected/manual_time";
  projected.run_name = projected.name;
  projected.real_time = 57.8;
  projected.time_unit = "ms";
  projected.counters = {{"projected", 1}};  // no phases needed: the projector's own
  EXPECT_EQ(check_step_row(projected), std::nullopt);
  bench::BenchmarkRow kernel;
  kernel.name = kernel.run_name = "Kernels/muon/cpu/shape:1024x1024/manual_time";
  EXPECT_EQ(check_step_row(kernel), std::nullopt);
}

TEST(StepRowCheckTest, AMeasuredRowCannotPassForAProjection) {
  bench::BenchmarkRow row = measured_row();
  row.counters["projected"] = 1;
  const auto problem = check_step_row(row);
  ASSERT_NE(problem, std::nullopt);
  EXPECT_NE(problem->find("does not end in /projected"), std::string::npos) << *problem;
  row.counters.erase("projected");
  EXPECT_NE(check_step_row(row), std::nullopt);
}

TEST(StepRowCheckTest, PhasesMustAddUpToTheStep) {
  bench::BenchmarkRow row = measured_row();
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
  row.counters.erase("other_ms");
  EXPECT_NE(check_step_row(row), std::nullopt);
  row = measured_row();
  row.counters["idle_ms"] = 11.0;  // idle is part of the phases
  EXPECT_NE(check_step_row(row), std::nullopt);
  // Spreads and medians (taken counter by counter) do not add up and are not checked; a spread
  // of a constant counter may even be missing (Google Benchmark writes 0/0 as NaN).
  for (const char* aggregate : {"stddev", "cv", "median"}) {
    row = aggregate_of(measured_row(), aggregate);
    row.counters["compute_ms"] = 0.1;
    if (std::string(aggregate) != "median") row.counters.erase("projected");
    EXPECT_EQ(check_step_row(row), std::nullopt) << aggregate;
  }
  row = aggregate_of(measured_row(), "mean");
  row.counters["compute_ms"] = 0.1;
  EXPECT_NE(check_step_row(row), std::nullopt);
}

TEST(StepRowCheckTest, NamesMustParse) {
  bench::BenchmarkRow row = measured_row();
  row.name = row.run_name =
      "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:3/dp:2/tp:1/manual_time";
  EXPECT_THROW(check_step_row(row), ConfigError);
}

}  // namespace
}  // namespace canzona::harness
