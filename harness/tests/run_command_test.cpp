// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench run` as a user runs it: it launches the optimizer-step suite under mpirun and
// writes one JSON, or ends with a clear error, exit code and nothing written.
#include <canzona/testing/run_process.hpp>

#include <canzona/bench/gbench_json.hpp>
#include <canzona/config.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace canzona::harness {
namespace {

using canzona::testing::ProcessResult;
using canzona::testing::run_process;

// One small case of the smoke preset: a 2-rank Canzona step of Qwen3-0.6B scaled down 16x.
const std::string kOneCase = "muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1";
// That case and layer-wise's, and both projected on 256 GPUs.
const std::string kTwoStrategies =
    "^OptimizerStep/muon/(canzona|layerwise)/qwen3-(0.6b~d16/gpus:2/dp:2/tp:1|32b/gpus:256)";

class RunCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("canzona-run-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  ProcessResult run(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    const auto start = std::chrono::steady_clock::now();
    ProcessResult result = run_process(CANZONA_BENCH_EXE, args);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::printf("run took %.1f s, exit %d\n", took.count(), result.exit_code);
    return result;
  }

  std::filesystem::path dir_;
};

TEST_F(RunCommandTest, WritesOneJsonThatTableAndCompareRead) {
  // Canzona and layer-wise measured at dp 2, and projected on 256 GPUs.
  const std::string out = (dir_ / "run.json").string();
  const ProcessResult r =
      run({"--preset", "smoke", "--filter", kTwoStrategies, "--repetitions", "3", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("[4/4]"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("OptimizerStep/" + kOneCase), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measured"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("projected †"), std::string::npos) << r.out;
  const bench::BenchmarkFile file = bench::read_gbench_json(out);
  // results/SCHEMA.md's provenance.
  for (const char* key :
       {"canzona_git_sha", "canzona_build_type", "canzona_config", "device_kind", "gpu_count",
        "gpu_name", "canzona_backend", "canzona_preset", "canzona_command", "ranks", "nodes",
        "gpus_per_node", "launcher", "mpi_library", "topology", "canzona_seed", "canzona_plan",
        "canzona_suite_command"}) {
    EXPECT_EQ(file.context.count(key), 1u) << key;
  }
  EXPECT_EQ(file.context.at("ranks"), "2");
  EXPECT_EQ(file.context.at("nodes"), "1");
  EXPECT_EQ(file.context.at("canzona_backend"), "cpu");
  EXPECT_EQ(file.context.at("canzona_preset"), "smoke");
  EXPECT_EQ(file.context.at("canzona_plan"), "--plan-preset megatron");
  EXPECT_NE(file.context.at("canzona_command").find("--filter"), std::string::npos);
  // Three repetitions and their aggregates of each measured case, one row of each projection.
  ASSERT_EQ(file.rows.size(), 2u * (3 + 4) + 2);
  const std::string& label = file.rows.front().label;
  EXPECT_EQ(label.rfind("plan_hash=", 0), 0u) << label;
  EXPECT_NE(label.find(";options=;seed=1"), std::string::npos) << label;
  EXPECT_NE(file.rows.back().label.find(";topology=dgx-h100;compute=cost_model"), std::string::npos)
      << file.rows.back().label;

  // The publishing commands read it as it is.
  const ProcessResult table = run_process(CANZONA_BENCH_EXE, {"table", out});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("| qwen3-0.6b~d16 | 2 | 2×1 | muon |"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("canzona vs layerwise"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("| qwen3-32b | 256 | 32×8 | muon |"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("PROJECTION on topology dgx-h100"), std::string::npos) << table.out;
  const ProcessResult same = run_process(CANZONA_BENCH_EXE, {"compare", out, out});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("4 SAME"), std::string::npos) << same.out;
}

TEST_F(RunCommandTest, PlanSettingsReachEveryRowAsPlanTakesThem) {
  const std::string out = (dir_ / "run.json").string();
  const ProcessResult r =
      run({"--preset", "smoke", "--filter", kOneCase, "--repetitions", "1", "--plan-preset",
           "canzona-reference", "--tp-execution", "serial", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const bench::BenchmarkFile file = bench::read_gbench_json(out);
  EXPECT_EQ(file.context.at("canzona_plan"),
            "--plan-preset canzona-reference --tp-execution serial");
  // The reference script's numel costs and 4e8-element buckets, and the switch.
  const std::string& label = file.rows.front().label;
  EXPECT_NE(label.find("cost=numel"), std::string::npos) << label;
  EXPECT_NE(label.find("bucket_size=400000000"), std::string::npos) << label;
  EXPECT_NE(label.find("tp_execution=serial"), std::string::npos) << label;
}

// Rank 0 alone runs the projected rows: a filter that selects only those is a selection of the
// job, not an empty one on the other ranks.
TEST_F(RunCommandTest, AFilterOfProjectedRowsOnlyRunsThem) {
  const std::string out = (dir_ / "run.json").string();
  const ProcessResult r =
      run({"--preset", "smoke", "--filter",
           "^OptimizerStep/muon/canzona/qwen3-32b/gpus:256/.*projected", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const bench::BenchmarkFile file = bench::read_gbench_json(out);
  ASSERT_EQ(file.rows.size(), 1u);
  EXPECT_NE(file.rows.front().name.find("/projected/"), std::string::npos)
      << file.rows.front().name;
}

#if CANZONA_WITH_TORCH
// The smoke preset's end-to-end rows come from the second suite and land in the same file.
TEST_F(RunCommandTest, EndToEndRowsJoinTheRun) {
  const std::string out = (dir_ / "run.json").string();
  const ProcessResult r =
      run({"--preset", "smoke", "--filter",
           "(^OptimizerStep|^E2EIteration)/muon/canzona/qwen3-32b/gpus:256/", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const bench::BenchmarkFile file = bench::read_gbench_json(out);
  ASSERT_EQ(file.rows.size(), 2u);
  EXPECT_EQ(file.rows[0].name.rfind("OptimizerStep/", 0), 0u) << file.rows[0].name;
  EXPECT_EQ(file.rows[1].name.rfind("E2EIteration/muon/canzona/qwen3-32b/gpus:256/dp:32/tp:8/"
                                    "seq:2048/mbs:4/projected/",
                                    0),
            0u)
      << file.rows[1].name;
  EXPECT_EQ(file.context.at("executable"),
            "canzona_bench_optimizer_step,canzona_bench_e2e_iteration");
}
#endif

// An install without the end-to-end suite (a GPU bundle leaves it out: it links libtorch) runs
// the optimizer-step rows of a preset that has E2E rows too, and says which rows are missing.
TEST_F(RunCommandTest, APresetRunsWithoutTheEndToEndSuiteAndSaysSo) {
  const std::filesystem::path suites = dir_ / "suites";
  std::filesystem::create_directories(suites);
  const std::filesystem::path bench = std::filesystem::path(CANZONA_BENCH_EXE).parent_path();
  std::filesystem::create_symlink(bench / "canzona_bench_optimizer_step",
                                  suites / "canzona_bench_optimizer_step");
  const ProcessResult r = run({"--preset", "smoke", "--list", "--suite-dir", suites.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("OptimizerStep/"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("E2EIteration/"), std::string::npos) << r.out;
  if (CANZONA_WITH_TORCH) {
    EXPECT_NE(r.err.find("no E2EIteration rows: the end-to-end suite canzona_bench_e2e_iteration "
                         "is not beside the other suites"),
              std::string::npos)
        << r.err;
  }
}

TEST_F(RunCommandTest, AnExceptionOnOneRankEndsTheRunAndWritesNothing) {
  const std::filesystem::path out = dir_ / "run.json";
  {
    std::ofstream previous(out);
    previous << "previous run";
  }
  const ProcessResult r = run({"--preset", "smoke", "--filter", kOneCase, "--out", out.string(),
                               "--repetitions", "3", "--suite-arg=--canzona_inject_failure=1"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("rank 1 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("failure injected"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
  std::ifstream in(out);
  const std::string kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "previous run");
  EXPECT_EQ(r.out, "");
}

// Processes whose command line mentions `marker` (the run's private scratch folder): the suite's
// ranks and mpirun carry it in --benchmark_out.
int processes_mentioning(const std::string& marker) {
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline");
    const std::string cmdline((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    if (cmdline.find(marker) != std::string::npos) ++found;
  }
  return found;
}

// SIGTERM (a CI system's timeout) or SIGINT (Ctrl-C) to `run` while it lists the cases (its
// launcher starting) or while its suite measures: the signal reaches the suite's job, `run` waits
// for it, removes its scratch folder, writes nothing and exits 128 + the signal with
// "interrupted"; no process of the job is left.
TEST_F(RunCommandTest, AnInterruptEndsTheWholeJobAndLeavesNothing) {
  struct Point {
    const char* what;
    bool listing;  ///< signal while a listing child runs, else while the ranks measure
  };
  for (const Point point : {Point{"listing", true}, Point{"measuring", false}})
    for (const int signal_number : {SIGTERM, SIGINT}) {
      SCOPED_TRACE(point.what);
      const std::filesystem::path tmp =
          dir_ / ("tmp-" + std::string(point.what) + "-" + std::to_string(signal_number));
      std::filesystem::create_directories(tmp);
      const std::filesystem::path out = dir_ / "run.json";
      std::ofstream(out) << "previous run";
      const std::filesystem::path err = dir_ / "err.txt";
      // A seed no other test uses marks this run's children in /proc (the listing's command line
      // carries no scratch path).
      const std::string seed =
          std::to_string(900000 + 100 * signal_number + (point.listing ? 1 : 2));
      std::vector<std::string> words = {CANZONA_BENCH_EXE, "run", "--preset", "smoke",
                                        "--seed",          seed,  "--out",    out.string()};
      std::vector<char*> argv;
      for (std::string& w : words) argv.push_back(w.data());
      argv.push_back(nullptr);
      std::vector<std::string> env_words = {"TMPDIR=" + tmp.string()};
      for (char** e = environ; *e != nullptr; ++e) {
        if (!std::string_view(*e).starts_with("TMPDIR=")) env_words.emplace_back(*e);
      }
      std::vector<char*> envp;
      for (std::string& w : env_words) envp.push_back(w.data());
      envp.push_back(nullptr);
      posix_spawn_file_actions_t actions;
      posix_spawn_file_actions_init(&actions);
      posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(),
                                       O_WRONLY | O_CREAT | O_TRUNC, 0644);
      posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
      pid_t pid = 0;
      ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
      posix_spawn_file_actions_destroy(&actions);
      // Signal it once a listing runs, or once the suite's ranks measure (they carry the scratch
      // folder in their flags).
      const auto reached = [&] {
        return point.listing ? processes_mentioning("--canzona_seed=" + seed) >= 1
                             : processes_mentioning(tmp.string() + "/canzona-run-") >= 2;
      };
      bool at_point = false;
      for (int i = 0; i < 12000 && !at_point; ++i) {
        at_point = reached();
        if (!at_point) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      ASSERT_TRUE(at_point) << "the run never reached the point";
      if (!point.listing) std::this_thread::sleep_for(std::chrono::milliseconds(500));
      ASSERT_EQ(kill(pid, signal_number), 0);
      int status = 0;
      ASSERT_EQ(waitpid(pid, &status, 0), pid);
      std::ifstream err_in(err);
      const std::string messages((std::istreambuf_iterator<char>(err_in)),
                                 std::istreambuf_iterator<char>());
      ASSERT_TRUE(WIFEXITED(status)) << "run died of a signal instead of ending the job:\n"
                                     << messages;
      EXPECT_EQ(WEXITSTATUS(status), 128 + signal_number) << messages;
      EXPECT_NE(messages.find("interrupted"), std::string::npos) << messages;
      EXPECT_EQ(processes_mentioning(tmp.string()), 0) << "a process of the job was left running";
      EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "the scratch folder was left in " << tmp;
      std::ifstream in(out);
      const std::string kept((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      EXPECT_EQ(kept, "previous run");
    }
}

// The ranks' collective timeout is run's input too: refused before any rank starts (exit 2), not
// found by every rank after launch; a value past a steady_clock deadline is refused as well.
TEST_F(RunCommandTest, ABadCollectiveTimeoutIsRefusedBeforeLaunch) {
  for (const char* bad : {"abc", "-1", "1e10"}) {
    const ProcessResult r =
        run_process(CANZONA_BENCH_EXE, {"run", "--preset", "smoke", "--filter", kOneCase}, 0,
                    {std::string("CANZONA_COLLECTIVE_TIMEOUT_S=") + bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("CANZONA_COLLECTIVE_TIMEOUT_S"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("run: preset"), std::string::npos) << "it launched anyway:\n" << r.err;
  }
}

TEST_F(RunCommandTest, ABadModelOnOneRankEndsTheRun) {
  // Rank 0 is started with a model that does not exist, rank 1 with the preset's.
  const std::string launcher = std::string("mpirun -np 1 ") + CANZONA_OPTIMIZER_STEP_SUITE +
                               " --canzona_models=qwen3-72b~d16 : -np 1";
  const std::filesystem::path out = dir_ / "run.json";
  const ProcessResult r = run(
      {"--preset", "smoke", "--filter", kOneCase, "--launcher", launcher, "--out", out.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("rank 0 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown model 'qwen3-72b'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A launcher that starts nothing, prints instead of running, or starts another number of ranks
// is bad input, found while the cases are listed: exit 2, no case measured, nothing written.
TEST_F(RunCommandTest, AWrongLauncherIsRefusedBeforeAnyCaseRuns) {
  const struct {
    std::string launcher;
    std::string message;
  } cases[] = {
      {"false", "--launcher 'false' did not start the optimizer-step suite"},
      {"echo", "--launcher 'echo' did not start the optimizer-step suite"},
      {"mpirun -np 1", "started the optimizer-step suite on 1 rank(s), not the 2 asked for"},
  };
  const std::filesystem::path out = dir_ / "run.json";
  for (const auto& c : cases) {
    const ProcessResult r = run({"--preset", "smoke", "--filter", kOneCase, "--ranks", "2",
                                 "--launcher", c.launcher, "--out", out.string()});
    EXPECT_EQ(r.exit_code, 2) << c.launcher << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was run"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("run: preset"), std::string::npos) << "it measured anyway:\n" << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

TEST_F(RunCommandTest, BadInputIsExitTwoWithAMessage) {
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--preset", "weekly"}, "unknown preset 'weekly'"},
      {{"--preset", "smoke", "--filter", "no-such-case"}, "matches none of the cases"},
      {{"--preset", "smoke", "--ranks", "4096"}, "--oversubscribe"},
      {{"--preset", "smoke", "--topology", "dgx-z9"}, "dgx-z9"},
      {{"--preset", "smoke", "--plan-preset", "nemo"}, "--plan-preset"},
      {{"--preset", "smoke", "--tp-execution", "eager"}, "--tp-execution"},
  };
  for (const auto& c : cases) {
    const ProcessResult r = run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << c.message;
  }
}

}  // namespace
}  // namespace canzona::harness
