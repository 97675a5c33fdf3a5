// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The case grids in one table: the presets of `run` and what the suites register by default.
#include <canzona/bench/presets.hpp>
#include <canzona/core/error.hpp>

#include <canzona/testing/config_error.hpp>

#include <gtest/gtest.h>

namespace canzona::bench {
namespace {

using canzona::testing::config_error;

TEST(PresetsTest, PresetsPickShapesForTheBackend) {
  const RunPreset cpu = run_preset("smoke", "cpu", 0);
  EXPECT_EQ(cpu.ranks, 2);
  EXPECT_EQ(cpu.step.models, "qwen3-0.6b~d16");
  ASSERT_TRUE(cpu.e2e.has_value());
  EXPECT_EQ(cpu.e2e->step.models, "qwen3-0.6b~d32");
  const RunPreset gpu = run_preset("smoke", "cuda", 8);
  EXPECT_EQ(gpu.ranks, 8);
  EXPECT_EQ(gpu.step.models, "qwen3-0.6b");
  EXPECT_GE(run_preset("nightly", "cuda", 8).repetitions, 9);
  EXPECT_FALSE(run_preset("nightly", "cuda", 8).e2e.has_value());
  EXPECT_EQ(run_preset("paper", "cpu", 0).step.projected_gpus, "8,16,32,64,128,256,512,1024");
  const std::string unknown = config_error([] { run_preset("weekly", "cpu", 0); });
  EXPECT_NE(unknown.find("unknown preset 'weekly'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("smoke, nightly, paper"), std::string::npos) << unknown;
}

// A suite started with --canzona_preset=<name> registers exactly the grid `run` describes.
TEST(PresetsTest, SuitesReadThePresetsGrids) {
  for (const std::string backend : {"cpu", "cuda"}) {
    for (const std::string& name : run_preset_names()) {
      const RunPreset preset = run_preset(name, backend, 1);
      const StepGridSpec step = step_suite_grid(name, backend);
      EXPECT_EQ(step.models, preset.step.models) << name;
      EXPECT_EQ(step.projected_gpus, preset.step.projected_gpus) << name;
      if (preset.e2e) {
        const E2EGridSpec e2e = e2e_suite_grid(name, backend);
        EXPECT_EQ(e2e.step.strategies, preset.e2e->step.strategies) << name;
        EXPECT_EQ(e2e.seq, preset.e2e->seq) << name;
      } else {
        const std::string error = config_error([&] { e2e_suite_grid(name, backend); });
        EXPECT_NE(error.find("has no end-to-end rows; presets with them: smoke, paper"),
                  std::string::npos)
            << error;
      }
    }
  }
  // Without a preset, the suites' own grids: every optimizer and strategy, the paper's counts.
  EXPECT_EQ(step_suite_grid("", "cpu").optimizers, "muon,shampoo,soap");
  EXPECT_EQ(step_suite_grid("", "cuda").projected_gpus, "8,16,32,64,128,256,512,1024");
  EXPECT_EQ(e2e_suite_grid("", "cpu").step.models, "qwen3-0.6b~d16");
  EXPECT_NE(config_error([] { step_suite_grid("weekly", "cpu"); }).find("unknown preset"),
            std::string::npos);
}

}  // namespace
}  // namespace canzona::bench
