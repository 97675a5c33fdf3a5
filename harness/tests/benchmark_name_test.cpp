// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Benchmark names as Google Benchmark writes them, and names that are not ours.
#include <canzona/harness/benchmark_name.hpp>

#include <gtest/gtest.h>

namespace canzona::harness {
namespace {

TEST(BenchmarkNameTest, ReadsEveryPartOfAMeasuredRow) {
  const auto name = parse_benchmark_name(
      "OptimizerStep/muon/canzona+sc/qwen3-8b~d32/gpus:4/dp:2/tp:2/manual_time");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->family, "OptimizerStep");
  EXPECT_EQ(name->optimizer, "muon");
  EXPECT_EQ(name->strategy, "canzona+sc");
  EXPECT_EQ(name->model, "qwen3-8b~d32");
  EXPECT_EQ(name->gpus, 4);
  EXPECT_EQ(name->dp, 2);
  EXPECT_EQ(name->tp, 2);
  EXPECT_FALSE(name->projected);
  EXPECT_EQ(name->aggregate, "");
  EXPECT_EQ(name->base, "OptimizerStep/muon/canzona+sc/qwen3-8b~d32/gpus:4/dp:2/tp:2");
}

TEST(BenchmarkNameTest, ProjectedRowsAndAggregatesKeepTheirBase) {
  const auto name = parse_benchmark_name(
      "OptimizerStep/soap/sc/qwen3-32b/gpus:256/dp:32/tp:8/projected/manual_time_median");
  ASSERT_TRUE(name.has_value());
  EXPECT_TRUE(name->projected);
  EXPECT_EQ(name->aggregate, "median");
  EXPECT_EQ(name->base, "OptimizerStep/soap/sc/qwen3-32b/gpus:256/dp:32/tp:8/projected");
  for (const char* aggregate : {"mean", "stddev", "cv"}) {
    const auto row = parse_benchmark_name(
        std::string("OptimizerStep/muon/zero1/qwen3-4b/gpus:8/dp:8/tp:1_") + aggregate);
    ASSERT_TRUE(row.has_value()) << aggregate;
    EXPECT_EQ(row->aggregate, aggregate);
  }
}

TEST(BenchmarkNameTest, RejectsWhatDoesNotFollowThePattern) {
  for (const char* bad : {
           "Kernels/muon/cpu/shape:1024x1024",                        // another pattern
           "OptimizerStep/muon/canzona/qwen3-8b/gpus:4/dp:2/tp:1",    // gpus != dp * tp
           "OptimizerStep/muon/canzona/qwen3-8b/gpus:2/dp:2",         // no tp
           "OptimizerStep/muon//qwen3-8b/gpus:2/dp:2/tp:1",           // empty strategy
           "OptimizerStep/muon/canzona/qwen3-8b/gpus:x/dp:2/tp:1",    // not a number
           "OptimizerStep/muon/canzona/qwen3-8b/gpus:0/dp:0/tp:1",    // not positive
           "OptimizerStep/muon/canzona/qwen3-8b/gpus:2/dp:2/tp:1/x",  // trailing part
       }) {
    EXPECT_FALSE(parse_benchmark_name(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace canzona::harness
