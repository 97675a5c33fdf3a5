// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one parser of benchmark names: every family's shape, Google Benchmark's suffixes, the
// projected marker, and names that must be refused.
#include <canzona/bench/benchmark_name.hpp>
#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace canzona::bench {
namespace {

TEST(BenchmarkNameTest, OptimizerStepMeasuredAndProjected) {
  const BenchmarkName measured =
      parse_benchmark_name("OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:4/dp:2/tp:2/manual_time");
  EXPECT_EQ(measured.key, "OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:4/dp:2/tp:2");
  EXPECT_EQ(measured.family, "OptimizerStep");
  EXPECT_EQ(measured.optimizer, "muon");
  EXPECT_EQ(measured.strategy, "canzona");
  EXPECT_EQ(measured.model, "qwen3-8b~d16");
  EXPECT_EQ(measured.gpus, 4);
  EXPECT_EQ(measured.dp, 2);
  EXPECT_EQ(measured.tp, 2);
  EXPECT_FALSE(measured.projected);

  const BenchmarkName projected = parse_benchmark_name(
      "OptimizerStep/soap/canzona+sc/qwen3-32b/gpus:256/dp:32/tp:8/projected/repeats:9/"
      "manual_time");
  EXPECT_TRUE(projected.projected);
  EXPECT_EQ(projected.key, "OptimizerStep/soap/canzona+sc/qwen3-32b/gpus:256/dp:32/tp:8");
  EXPECT_EQ(projected.strategy, "canzona+sc");
  EXPECT_EQ(projected.gpus, 256);
}

TEST(BenchmarkNameTest, E2EPlannerAndKernelsFamilies) {
  const BenchmarkName e2e = parse_benchmark_name(
      "E2EIteration/muon/layerwise/qwen3-1.7b/gpus:8/dp:8/tp:1/seq:4096/mbs:1");
  EXPECT_EQ(*e2e.param("seq"), "4096");
  EXPECT_EQ(*e2e.param("mbs"), "1");
  EXPECT_EQ(e2e.param("nothing"), nullptr);

  const BenchmarkName layout = parse_benchmark_name("Planner/zero1/qwen3-8b/gpus:8/dp:8/tp:1");
  EXPECT_EQ(layout.strategy, "zero1");
  EXPECT_EQ(layout.optimizer, "");
  EXPECT_EQ(layout.model, "qwen3-8b");
  const BenchmarkName plan =
      parse_benchmark_name("Planner/muon/canzona/qwen3-32b/gpus:256/dp:32/tp:8");
  EXPECT_EQ(plan.optimizer, "muon");
  EXPECT_EQ(plan.strategy, "canzona");

  const BenchmarkName kernel =
      parse_benchmark_name("Kernels/shampoo/cpu/shape:1024x128/manual_time");
  EXPECT_EQ(kernel.optimizer, "shampoo");
  EXPECT_EQ(kernel.backend, "cpu");
  EXPECT_EQ(*kernel.param("shape"), "1024x128");
  EXPECT_EQ(kernel.key, "Kernels/shampoo/cpu/shape:1024x128");
}

TEST(BenchmarkNameTest, UnknownFamiliesKeepTheirTokens) {
  const BenchmarkName other = parse_benchmark_name("Collectives/all_reduce/bytes:1048576");
  EXPECT_EQ(other.family, "Collectives");
  ASSERT_EQ(other.positional.size(), 1u);
  EXPECT_EQ(other.positional[0], "all_reduce");
  EXPECT_EQ(*other.param("bytes"), "1048576");
}

void expect_refused(const std::string& name, const std::string& fragment) {
  try {
    parse_benchmark_name(name);
    ADD_FAILURE() << name << " was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(BenchmarkNameTest, RefusesMalformedNames) {
  expect_refused("OptimizerStep/muon/canzona/qwen3-8b/gpus:8/tp:1", "(no 'dp:')");
  expect_refused("OptimizerStep/muon/qwen3-8b/gpus:8/dp:8/tp:1", "does not have the shape");
  expect_refused("OptimizerStep/muon/canzona/qwen3-8b/gpus:0/dp:8/tp:1",
                 "'gpus:0' is not a positive integer");
  expect_refused("OptimizerStep/muon/canzona/qwen3-8b/gpus:8x/dp:8/tp:1", "'gpus:8x'");
  expect_refused("OptimizerStep/muon/canzona/qwen3-8b/gpus:8/dp:2/tp:2",
                 "gpus:8 is not dp:2 x tp:2");
  expect_refused("OptimizerStep//canzona/qwen3-8b/gpus:8/dp:8/tp:1", "empty token");
  expect_refused("OptimizerStep/muon/canzona/gpus:8/qwen3-8b/dp:8/tp:1", "follows a key:value");
  expect_refused("OptimizerStep/muon/canzona/qwen3-8b/gpus:8/gpus:8/dp:8/tp:1", "repeats");
  expect_refused("Kernels/muon/cpu/shape:", "needs a key and a value");
  expect_refused("gpus:8/x", "starts with a parameter");
}

// Writers and parser share one definition: every family has a writer, and what a writer
// produces reads back as the parts it was given.
TEST(BenchmarkNameTest, EveryWriterReadsBackThroughTheParser) {
  const DistributedCase step{"soap", "canzona+sc", "qwen3-8b~d32", 4, 2, true};
  std::vector<std::string> written = {optimizer_step_name(step),
                                      e2e_iteration_name(step, 64, 2),
                                      planner_name({"", "zero1", "qwen3-32b", 256, 1}),
                                      planner_name({"muon", "canzona", "qwen3-32b", 32, 8}),
                                      kernels_name("muon", "cuda", 4096, 1024),
                                      projector_name("muon", "qwen3-235b-a22b", 256, 4),
                                      plan_quality_name("muon", "qwen3-8b", 64, 2, "numel")};
  EXPECT_EQ(written[0], "OptimizerStep/soap/canzona+sc/qwen3-8b~d32/gpus:8/dp:4/tp:2/projected");
  EXPECT_EQ(written[1],
            "E2EIteration/soap/canzona+sc/qwen3-8b~d32/gpus:8/dp:4/tp:2/seq:64/mbs:2/projected");
  EXPECT_EQ(written[4], "Kernels/muon/cuda/shape:4096x1024");
  EXPECT_EQ(written[5], "Projector/muon/qwen3-235b-a22b/gpus:1024/dp:256/tp:4");
  EXPECT_EQ(written[6], "PlanQuality/muon/qwen3-8b/gpus:128/dp:64/tp:2/cost:numel");

  std::set<std::string> families_written;
  for (const std::string& name : written) {
    const BenchmarkName parsed = parse_benchmark_name(name + "/repeats:3/manual_time");
    families_written.insert(parsed.family);
    EXPECT_EQ(format_benchmark_name(parsed), name);
  }
  const BenchmarkName e2e = parse_benchmark_name(written[1]);
  EXPECT_EQ(e2e.optimizer, "soap");
  EXPECT_EQ(e2e.strategy, "canzona+sc");
  EXPECT_EQ(e2e.model, "qwen3-8b~d32");
  EXPECT_EQ(e2e.gpus, 8);
  EXPECT_TRUE(e2e.projected);
  for (const auto& [family, pattern] : benchmark_families()) {
    EXPECT_TRUE(families_written.contains(std::string(family))) << family << ": " << pattern;
  }
}

// gpus = dp × tp is checked without overflow: 65537 × 65537 wraps to 131073 in 32 bits.
TEST(BenchmarkNameTest, TheGpuCountIsCheckedWithoutOverflow) {
  EXPECT_THROW(parse_benchmark_name("OptimizerStep/muon/canzona/m/gpus:131073/dp:65537/tp:65537"),
               ConfigError);
  EXPECT_THROW(optimizer_step_name({"muon", "canzona", "m", 65537, 65537, false}), ConfigError);
}

TEST(BenchmarkNameTest, WritersRefuseTokensTheParserWouldSplit) {
  for (const DistributedCase& bad : {DistributedCase{"muon", "a/b", "qwen3-8b", 1, 1, false},
                                     DistributedCase{"muon", "canzona", "", 1, 1, false},
                                     DistributedCase{"muon", "canzona", "dp:2", 1, 1, false},
                                     DistributedCase{"muon", "canzona", "qwen3-8b", 0, 1, false}}) {
    EXPECT_THROW(optimizer_step_name(bad), ConfigError) << bad.strategy << " " << bad.model;
  }
}

}  // namespace
}  // namespace canzona::bench
