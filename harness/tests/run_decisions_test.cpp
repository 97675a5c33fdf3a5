// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The parts of `canzona-bench run` that decide before anything is launched (presets, build type,
// ranks, launcher) and what it makes of the suite's output (merge, summary).
#include "result_checks.hpp"
#include "run_launch.hpp"
#include "run_report.hpp"

#include <canzona/bench/gbench_json.hpp>
#include <canzona/core/error.hpp>

#include <canzona/testing/config_error.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace canzona::harness {
namespace {

using canzona::testing::config_error;

TEST(RunPresetsTest, RefusesDebugBuilds) {
  EXPECT_EQ(config_error([] { require_release_build("Release", "x"); }), "");
  EXPECT_EQ(config_error([] { require_release_build("RelWithDebInfo", "x"); }), "");
  const std::string debug = config_error([] { require_release_build("Debug", "the suite was"); });
  EXPECT_NE(debug.find("'Debug'"), std::string::npos) << debug;
  EXPECT_NE(debug.find("-DCMAKE_BUILD_TYPE=Release"), std::string::npos) << debug;
}

TEST(RunPresetsTest, RanksMustFitTheMachine) {
  EXPECT_EQ(config_error([] { check_ranks("mpirun", 2, "cpu", false, 2, 0); }), "");
  const std::string cores = config_error([] { check_ranks("mpirun", 4, "cpu", false, 2, 0); });
  EXPECT_NE(cores.find("2 core(s)"), std::string::npos) << cores;
  EXPECT_NE(cores.find("--oversubscribe"), std::string::npos) << cores;
  EXPECT_EQ(config_error([] { check_ranks("mpirun", 4, "cpu", true, 2, 0); }), "");
  const std::string gpus = config_error([] { check_ranks("mpirun", 9, "cuda", true, 64, 8); });
  EXPECT_NE(gpus.find("8 GPU(s)"), std::string::npos) << gpus;
  // srun and custom prefixes place ranks on other nodes: not this machine's to judge.
  EXPECT_EQ(config_error([] { check_ranks("srun", 64, "cuda", false, 2, 0); }), "");
}

TEST(RunPresetsTest, LaunchersAndCommandLines) {
  const Launch mpirun = make_launch("mpirun", 4, true, true);
  EXPECT_EQ(mpirun.prefix, (std::vector<std::string>{"mpirun", "-np", "4", "--oversubscribe"}));
  // CPU ranks: one BLAS thread, and shared-memory messages without the single copy that made
  // step times bimodal (unless the caller's environment says otherwise).
  const auto has = [](const Launch& launch, const std::string& entry) {
    return std::find(launch.env.begin(), launch.env.end(), entry) != launch.env.end();
  };
  if (std::getenv("OMPI_MCA_btl_vader_single_copy_mechanism") == nullptr) {
    EXPECT_TRUE(has(mpirun, "OMPI_MCA_btl_vader_single_copy_mechanism=none"));
  }
  EXPECT_FALSE(
      has(make_launch("mpirun", 4, true, false), "OMPI_MCA_btl_vader_single_copy_mechanism=none"));
  const Launch srun = make_launch("srun", 16, false, false);
  EXPECT_EQ(srun.prefix, (std::vector<std::string>{"srun", "-n", "16"}));
  const Launch custom = make_launch("mpirun -np 16 --hostfile hosts", 16, false, false);
  EXPECT_EQ(custom.prefix.size(), 5u);
  EXPECT_NE(config_error([] { make_launch("  ", 2, false, false); }), "");
  EXPECT_EQ(command_line({"run", "--filter", "muon/(canzona|sc)", "it's"}),
            "run --filter 'muon/(canzona|sc)' 'it'\\''s'");
}

nlohmann::json suite_output() {
  return nlohmann::json::parse(R"({
    "context": {"canzona_git_sha": "abc", "canzona_build_type": "Release",
                "canzona_config": "cuda=0", "device_kind": "cpu", "ranks": "2"},
    "benchmarks": [
      {"name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_type": "iteration", "iterations": 5, "real_time": 2.0, "cpu_time": 1.0,
       "time_unit": "ms", "imbalance": 1.25, "projector_ms": 1.5, "projector_error": -0.4,
       "projected": 0},
      {"name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_type": "iteration", "iterations": 5, "real_time": 2.5, "cpu_time": 1.0,
       "time_unit": "ms", "imbalance": 1.25, "projector_ms": 1.5, "projector_error": -0.4,
       "projected": 0},
      {"name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_type": "iteration", "iterations": 5, "real_time": 3.0, "cpu_time": 1.0,
       "time_unit": "ms", "imbalance": 1.25, "projector_ms": 1.5, "projector_error": -0.4,
       "projected": 0},
      {"name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time_median",
       "run_name": "OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1/manual_time",
       "run_type": "aggregate", "aggregate_name": "median", "iterations": 5, "real_time": 2.5,
       "cpu_time": 1.0, "time_unit": "ms", "imbalance": 1.25, "projected": 0},
      {"name": "OptimizerStep/muon/sc/m/gpus:256/dp:32/tp:8/projected/manual_time",
       "run_type": "iteration", "iterations": 9, "real_time": 57.8, "cpu_time": 0.1,
       "time_unit": "ms", "imbalance": 1.0, "projected": 1,
       "label": "plan_hash=1;options=;topology=dgx-h100;compute=cost_model"}
    ]})");
}

TEST(RunReportTest, MergesSuiteOutputsWithProvenance) {
  const nlohmann::json merged =
      merge_runs({suite_output(), suite_output()}, {{"canzona_preset", "smoke"}});
  EXPECT_EQ(merged["benchmarks"].size(), 10u);
  EXPECT_EQ(merged["context"]["canzona_preset"], "smoke");
  EXPECT_EQ(merged["context"]["canzona_git_sha"], "abc");
  EXPECT_NE(config_error([] { merge_runs({nlohmann::json::object()}, {}); }), "");
}

TEST(RunReportTest, SummaryMarksProjectedRows) {
  const std::string text =
      format_run_summary(make_run(bench::parse_gbench_json(suite_output(), "doc"), "doc"));
  // The median over repetitions, its cv, the imbalance, the projector's step and error.
  EXPECT_NE(text.find("OptimizerStep/muon/canzona/m~d16/gpus:2/dp:2/tp:1"), std::string::npos);
  EXPECT_NE(text.find("2.500"), std::string::npos) << text;
  EXPECT_NE(text.find("1.250"), std::string::npos) << text;
  EXPECT_NE(text.find("1.500"), std::string::npos) << text;
  EXPECT_NE(text.find("20.0%"), std::string::npos) << text;  // sample stddev 0.5 / mean 2.5
  EXPECT_NE(text.find("-40.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("OptimizerStep/muon/sc/m/gpus:256/dp:32/tp:8/projected"), std::string::npos);
  EXPECT_NE(text.find("projected †"), std::string::npos) << text;
  EXPECT_NE(text.find("† projected on dgx-h100 (cost_model): a model of that cluster, not a "
                      "measurement"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace canzona::harness
