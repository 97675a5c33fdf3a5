// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What validate rejects in measured end-to-end rows: counters that are not the relations the
// suite defines (phases adding up to the iteration, the exposed optimizer time, the token rate).
#include "e2e_row_check.hpp"

#include <gtest/gtest.h>

namespace canzona::harness {
namespace {

bench::BenchmarkRow measured_row() {
  bench::BenchmarkRow row;
  row.name = "E2EIteration/muon/canzona/qwen3-0.6b~d32/gpus:2/dp:2/tp:1/seq:32/mbs:1/manual_time";
  row.run_name = row.name;
  row.run_type = "iteration";
  row.iterations = 4;
  row.real_time = 200.0;
  row.time_unit = "ms";
  row.counters = {{"projected", 0},
                  {"iteration_ms", 200.0},
                  {"forward_ms", 60.0},
                  {"backward_ms", 120.0},
                  {"step_ms", 15.0},
                  {"other_ms", 5.0},
                  {"grad_sync_only_ms", 190.0},
                  {"optimizer_exposed_ms", 10.0},
                  {"tokens", 64.0},
                  {"tokens_per_s", 320.0}};
  return row;
}

TEST(E2ERowCheckTest, AcceptsWellFormedRowsAndLeavesOthersAlone) {
  EXPECT_EQ(check_e2e_row(measured_row()), std::nullopt);
  bench::BenchmarkRow mean = measured_row();
  mean.name += "_mean";
  mean.run_type = "aggregate";
  mean.aggregate_name = "mean";
  mean.counters["tokens_per_s"] = 330.0;  // a mean of rates: not checked against the mean time
  EXPECT_EQ(check_e2e_row(mean), std::nullopt);
  bench::BenchmarkRow projected;
  projected.name = projected.run_name =
      "E2EIteration/muon/canzona/qwen3-32b/gpus:256/dp:32/tp:8/seq:2048/mbs:4/projected/"
      "manual_time";
  projected.counters = {{"projected", 1}};
  EXPECT_EQ(check_e2e_row(projected), std::nullopt);
  bench::BenchmarkRow step;
  step.name = step.run_name = "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1";
  EXPECT_EQ(check_e2e_row(step), std::nullopt);
}

TEST(E2ERowCheckTest, RejectsCountersThatBreakTheSuitesRelations) {
  const auto rejected = [](const char* counter, double value, const char* words) {
    bench::BenchmarkRow row = measured_row();
    row.counters[counter] = value;
    const auto problem = check_e2e_row(row);
    ASSERT_NE(problem, std::nullopt) << counter << " = " << value;
    EXPECT_NE(problem->find(words), std::string::npos) << *problem;
  };
  rejected("projected", 1, "does not end in /projected");
  rejected("iteration_ms", 150.0, "row's time");
  rejected("backward_ms", 90.0, "add up");
  rejected("optimizer_exposed_ms", 40.0, "grad_sync_only_ms");
  rejected("tokens_per_s", 640.0, "tokens per iteration_ms");
  bench::BenchmarkRow row = measured_row();
  row.counters["other_ms"] = -5.0;
  row.counters["step_ms"] = 25.0;  // still adds up, but the phases exceed the iteration
  const auto overlap = check_e2e_row(row);
  ASSERT_NE(overlap, std::nullopt);
  EXPECT_NE(overlap->find("exceed"), std::string::npos) << *overlap;
  row = measured_row();
  row.counters.erase("grad_sync_only_ms");
  ASSERT_NE(check_e2e_row(row), std::nullopt);
  EXPECT_NE(check_e2e_row(row)->find("no 'grad_sync_only_ms'"), std::string::npos);
}

}  // namespace
}  // namespace canzona::harness
