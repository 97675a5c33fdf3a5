// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The regression gate. The engine on runs built in memory (each verdict and how it is reached),
// and `canzona-bench compare` as a black box on the fixture run (results/SCHEMA.md shape):
// identical runs pass, a 20 % slower row and a removed row fail with exit 1, and files that
// must not be compared exit 2 with a message and write nothing.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/compare.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace canzona::harness {
namespace {

const char* kRow = "OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1";

// A run with one benchmark measured `samples` times (ms), with a deterministic counter.
Run run_of(const std::vector<double>& samples, double state_bytes = 1024.0,
           const std::string& device_kind = "cpu") {
  bench::BenchmarkFile file;
  file.context = {{"canzona_git_sha", "abc"},
                  {"canzona_build_type", "Release"},
                  {"canzona_config", "cuda=0,nccl=0,mpi=1,torch=0"},
                  {"device_kind", device_kind}};
  for (std::size_t i = 0; i < samples.size(); ++i) {
    bench::BenchmarkRow row;
    row.name = row.run_name = std::string(kRow) + "/manual_time";
    row.run_type = "iteration";
    row.repetitions = static_cast<std::int64_t>(samples.size());
    row.repetition_index = static_cast<std::int64_t>(i);
    row.iterations = 3;
    row.real_time = samples[i];
    row.time_unit = "ms";
    row.counters = {{"state_bytes", state_bytes}, {"mean_ms", samples[i] * 0.9}};
    file.rows.push_back(row);
  }
  return make_run(file, "run.json");
}

// Nine samples around `centre` with a ±1 % spread.
std::vector<double> nine(double centre) {
  std::vector<double> v;
  for (int i = -4; i <= 4; ++i) v.push_back(centre * (1.0 + 0.0025 * i));
  return v;
}

const RowComparison& only_row(const Comparison& c) {
  EXPECT_EQ(c.rows.size(), 1u);
  return c.rows.front();
}

TEST(CompareEngineTest, UTestWithNineRepetitions) {
  const Comparison same = compare_runs(run_of(nine(10)), run_of(nine(10.1)), {});
  EXPECT_EQ(only_row(same).verdict, Verdict::kSame);
  EXPECT_EQ(only_row(same).method, "u-test");

  const Comparison slower = compare_runs(run_of(nine(10)), run_of(nine(12)), {});
  EXPECT_EQ(only_row(slower).verdict, Verdict::kSlower);
  EXPECT_NEAR(only_row(slower).change, 0.2, 1e-12);
  EXPECT_LT(*only_row(slower).p_value, 0.001);
  EXPECT_EQ(slower.exit_code(), 1);

  const Comparison faster = compare_runs(run_of(nine(10)), run_of(nine(8.5)), {});
  EXPECT_EQ(only_row(faster).verdict, Verdict::kFaster);
  EXPECT_EQ(faster.exit_code(), 0);

  // The median moved by 8 %, but the samples interleave: not significant, so NOISY.
  const std::vector<double> wide = {6, 8, 9, 10, 10, 11, 12, 14, 16};
  const std::vector<double> wide_shifted = {6.5, 8.2, 9.5, 10.3, 10.8, 11.5, 12.5, 14.4, 16.2};
  const Comparison noisy = compare_runs(run_of(wide), run_of(wide_shifted), {});
  EXPECT_EQ(only_row(noisy).verdict, Verdict::kNoisy);
  EXPECT_GE(*only_row(noisy).p_value, 0.05);
  EXPECT_EQ(noisy.exit_code(), 0);
}

TEST(CompareEngineTest, NoiseWidenedThresholdWithFewRepetitions) {
  // One repetition a side: the spread is unknown, the threshold is the threshold.
  EXPECT_EQ(only_row(compare_runs(run_of({10}), run_of({10.4}), {})).verdict, Verdict::kSame);
  const Comparison slower = compare_runs(run_of({10}), run_of({10.6}), {});
  EXPECT_EQ(only_row(slower).verdict, Verdict::kSlower);
  EXPECT_EQ(only_row(slower).method, "noise");

  // Three repetitions with ~10 % spread on both sides: an 8 % move is within the noise.
  const Comparison noisy = compare_runs(run_of({9, 10, 11}), run_of({9.72, 10.8, 11.88}), {});
  EXPECT_EQ(only_row(noisy).verdict, Verdict::kNoisy);
  EXPECT_NEAR(only_row(noisy).threshold, 0.1, 1e-12);
  // ... and a 30 % move is not.
  EXPECT_EQ(only_row(compare_runs(run_of({9, 10, 11}), run_of({11.7, 13, 14.3}), {})).verdict,
            Verdict::kSlower);

  CompareOptions strict;
  strict.threshold = 0.01;
  EXPECT_EQ(only_row(compare_runs(run_of({10}), run_of({10.2}), strict)).verdict, Verdict::kSlower);
}

TEST(CompareEngineTest, DeterministicCountersAreBehaviourNotNoise) {
  const Comparison c = compare_runs(run_of(nine(10), 1024.0), run_of(nine(10), 2048.0), {});
  const RowComparison& row = only_row(c);
  EXPECT_EQ(row.verdict, Verdict::kSame);
  ASSERT_EQ(row.behaviour_changes.size(), 1u) << "mean_ms is measured and must not be listed";
  EXPECT_EQ(row.behaviour_changes[0].counter, "state_bytes");
  EXPECT_EQ(c.behaviour_changes(), 1);
  EXPECT_EQ(c.exit_code(), 0);
  EXPECT_NE(comparison_markdown(c, false).find("| `state_bytes` | 1024 | 2048 |"),
            std::string::npos);

  const bench::BenchmarkName step = bench::parse_benchmark_name(kRow);
  EXPECT_TRUE(is_deterministic_counter(step, "tp_gather_bytes"));
  EXPECT_TRUE(is_deterministic_counter(step, "plan_imbalance"));
  EXPECT_FALSE(is_deterministic_counter(step, "imbalance"));
  EXPECT_FALSE(is_deterministic_counter(step, "compute_ms"));
  EXPECT_TRUE(is_deterministic_counter(step, "backend_ops"));
  EXPECT_TRUE(is_deterministic_counter(step, "host_syncs"));
  EXPECT_TRUE(is_deterministic_counter(
      bench::parse_benchmark_name("Planner/muon/canzona/qwen3-8b/gpus:8/dp:8/tp:1"), "imbalance"));
}

TEST(CompareEngineTest, RefusesDifferentDeviceKindsUnlessAllowed) {
  try {
    compare_runs(run_of({10}), run_of({10}, 1024.0, "h100-x1"), {});
    ADD_FAILURE() << "device kinds cpu and h100-x1 were compared";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("device_kind = 'cpu'"), std::string::npos) << what;
    EXPECT_NE(what.find("device_kind = 'h100-x1'"), std::string::npos) << what;
    EXPECT_NE(what.find("--allow-device-mismatch"), std::string::npos) << what;
  }
  CompareOptions allow;
  allow.allow_device_mismatch = true;
  const Comparison c = compare_runs(run_of({10}), run_of({10}, 1024.0, "h100-x1"), allow);
  ASSERT_EQ(c.allowed_differences.size(), 1u);
  EXPECT_NE(comparison_markdown(c, false).find("> allowed: device kinds differ"),
            std::string::npos);
}

TEST(CompareEngineTest, ShowsEachSidesGpuClocks) {
  harness::Run base = run_of(nine(10), 1024.0, "h100-x1");
  harness::Run head = run_of(nine(10), 1024.0, "h100-x1");
  base.context["gpu_clocks"] = "1980/2619";
  head.context["gpu_clocks"] = "1410/2619";
  const Comparison c = compare_runs(base, head, {});
  const std::string md = comparison_markdown(c, false);
  EXPECT_NE(md.find("clocks 1980/2619 MHz"), std::string::npos) << md;
  EXPECT_NE(md.find("clocks 1410/2619 MHz"), std::string::npos) << md;
  const nlohmann::json j = comparison_json(c);
  EXPECT_EQ(j.at("base").at("gpu_clocks"), "1980/2619") << j.dump(2);
  EXPECT_EQ(j.at("head").at("gpu_clocks"), "1410/2619") << j.dump(2);
}

TEST(CompareEngineTest, RejectsBadOptions) {
  CompareOptions bad_filter;
  bad_filter.filter = "(";
  EXPECT_THROW(compare_runs(run_of({10}), run_of({10}), bad_filter), ConfigError);
  CompareOptions no_match;
  no_match.filter = "Kernels/";
  EXPECT_THROW(compare_runs(run_of({10}), run_of({10}), no_match), ConfigError);
  CompareOptions bad_alpha;
  bad_alpha.alpha = 1.5;
  EXPECT_THROW(compare_runs(run_of({10}), run_of({10}), bad_alpha), ConfigError);
}

// --- canzona-bench compare as a black box on the fixture run ---

using testing::FixtureFiles;
using testing::ProcessResult;

ProcessResult compare_cli(const std::vector<std::string>& args) {
  std::vector<std::string> full = {"compare"};
  full.insert(full.end(), args.begin(), args.end());
  return testing::run_process(CANZONA_BENCH_EXE, full);
}

TEST(CompareCommandTest, IdenticalRunsAreAllSame) {
  FixtureFiles files;
  const std::string run = files.write("run.json", files.fixture());
  const ProcessResult r = compare_cli({run, run, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const std::size_t rows = doc.at("rows").size();
  EXPECT_EQ(rows, 27u);
  EXPECT_EQ(doc.at("summary").at("verdicts").at("SAME").get<std::size_t>(), rows);
  EXPECT_EQ(doc.at("summary").at("exit_code").get<int>(), 0);
  EXPECT_EQ(doc.at("rows")[0].at("method").get<std::string>(), "u-test");
}

TEST(CompareCommandTest, OneRowTwentyPercentSlowerIsSlowerAndExitsOne) {
  FixtureFiles files;
  const std::string base = files.write("base.json", files.fixture());
  nlohmann::json slower = files.fixture();
  testing::scale_times(slower, kRow, 1.2);
  const std::string cand = files.write("cand.json", slower);
  const ProcessResult r = compare_cli({base, cand});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("**REGRESSION** — 1 SLOWER, 26 SAME"), std::string::npos) << r.out;
  const std::string line_start = testing::table_cell(kRow);
  const std::size_t line = r.out.find(line_start);
  ASSERT_NE(line, std::string::npos) << r.out;
  const std::string row_text = r.out.substr(line, r.out.find('\n', line) - line);
  EXPECT_NE(row_text.find("+20.0%"), std::string::npos) << row_text;
  EXPECT_NE(row_text.find("SLOWER"), std::string::npos) << row_text;
  EXPECT_NE(row_text.find("U p="), std::string::npos) << row_text;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CompareCommandTest, ARemovedRowIsMissingAndExitsOne) {
  FixtureFiles files;
  const std::string base = files.write("base.json", files.fixture());
  nlohmann::json removed = files.fixture();
  testing::remove_rows(removed, kRow);
  const std::string cand = files.write("cand.json", removed);
  const ProcessResult r = compare_cli({base, cand, "--changes-only"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("1 MISSING, 26 SAME"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(testing::table_cell(kRow)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("26 SAME rows not shown"), std::string::npos) << r.out;

  // The other way round the row is NEW, which passes.
  EXPECT_EQ(compare_cli({cand, base}).exit_code, 0);
}

// Bad inputs: exit 2, a message on stderr naming the problem, nothing on stdout, no --out file.
void expect_refused(FixtureFiles& files, const std::string& base, const std::string& cand,
                    const std::string& fragment, std::vector<std::string> extra = {}) {
  const std::string out = files.path("report.md");
  std::vector<std::string> args = {base, cand, "--out", out};
  args.insert(args.end(), extra.begin(), extra.end());
  const ProcessResult r = compare_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out)) << "a report was written for a refused comparison";
}

TEST(CompareCommandTest, BadInputExitsTwoAndWritesNothing) {
  FixtureFiles files;
  const std::string good = files.write("good.json", files.fixture());

  nlohmann::json debug = files.fixture();
  debug["context"]["canzona_build_type"] = "Debug";
  expect_refused(files, good, files.write("debug.json", debug), "built as 'Debug'");

  const std::string text = files.fixture().dump();
  expect_refused(files, good, files.write_text("truncated.json", text.substr(0, text.size() / 2)),
                 "not valid JSON");

  expect_refused(files, good,
                 files.write_text("foreign.json", R"({"model": {"name": "qwen3-8b"}})"),
                 "missing object 'context'");
  nlohmann::json other_program = files.fixture();
  other_program["context"].erase("canzona_git_sha");
  expect_refused(files, good, files.write("other.json", other_program),
                 "not written by a canzona suite");

  nlohmann::json gpu = files.fixture();
  gpu["context"]["device_kind"] = "h100-x1";
  const std::string gpu_file = files.write("gpu.json", gpu);
  expect_refused(files, good, gpu_file, "device kinds differ");
  EXPECT_EQ(compare_cli({good, gpu_file, "--allow-device-mismatch"}).exit_code, 0);

  nlohmann::json replanned = files.fixture();
  testing::set_label(replanned, kRow, "plan_hash=ffffffffffffffff;seed=1234");
  expect_refused(files, good, files.write("replanned.json", replanned), "planned differently");

  nlohmann::json projected = files.fixture();
  testing::rename_rows(projected, kRow, std::string(kRow) + "/projected");
  expect_refused(files, good, files.write("projected.json", projected),
                 "is measured in the base but projected in the head");

  expect_refused(files, good, files.path("absent.json"), "cannot open it");
  expect_refused(files, good, good, "--threshold", {"--threshold", "-3"});

  // Two grids without a row in common: every row NEW or MISSING is not a verdict.
  nlohmann::json other_grid = files.fixture();
  for (nlohmann::json& row : other_grid["benchmarks"]) {
    for (const char* key : {"name", "run_name"}) {
      std::string name = row[key];
      name.replace(name.find("OptimizerStep/") + 14, 0, "adamw-");
      row[key] = name;
    }
  }
  expect_refused(files, good, files.write("other-grid.json", other_grid), "share no benchmark");
}

TEST(CompareCommandTest, SaysUnderWhatLoadEachSideRanAndThatItIsNotTheGate) {
  FixtureFiles files;
  nlohmann::json quiet = files.fixture();
  quiet["context"]["load_avg"] = {0.2, 0.3, 0.4};
  nlohmann::json busy = files.fixture();
  busy["context"]["load_avg"] = {4.9, 3.0, 2.0};
  const ProcessResult r =
      compare_cli({files.write("quiet.json", quiet), files.write("busy.json", busy)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| load average (1, 5, 15 min) | 0.2 0.3 0.4 | 4.9 3 2 |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("> **warning**: the machines were loaded differently (1-minute load "
                       "average 0.2 in the base, 4.9 in the head)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("it is not the regression gate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over the 27 rows timed on both sides"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace canzona::harness
