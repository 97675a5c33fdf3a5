// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `drift` end to end on fabricated histories: folders of nightly runs whose values follow a known
// trend with a fixed jitter, so every verdict is known in advance and no test measures anything.
// A stable series, a +1 %/night drift, an improvement, one bad night, cpu rows judged by
// `cpu_ms`, the window (by date, not file name), rows in too few nights, and bad input refused
// with nothing written.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

namespace fs = std::filesystem;

const std::string kStable = "OptimizerStep/muon/canzona/qwen3-0.6b/gpus:8/dp:8/tp:1";
const std::string kDrifting = "OptimizerStep/muon/layerwise/qwen3-0.6b/gpus:8/dp:8/tp:1";
const std::string kImproving = "OptimizerStep/soap/canzona/qwen3-8b/gpus:8/dp:4/tp:2";
const std::string kBadNight = "OptimizerStep/shampoo/canzona/qwen3-8b/gpus:8/dp:4/tp:2";

// A night-to-night jitter of at most ±0.5 %, the same in every test.
constexpr double kJitter[] = {0.004,  -0.003, 0.001, -0.005, 0.002, 0.0,    -0.002,
                              0.005,  -0.001, 0.003, -0.004, 0.001, -0.002, 0.004,
                              -0.003, 0.002,  0.0,   -0.001, 0.003, -0.004};

double jitter(int night, int row) { return 1.0 + kJitter[(night + 3 * row) % 20]; }

// One benchmark of one night: three repetitions around `ms` (their median is `ms`), each with
// `cpu_ms` when given.
void add_rows(nlohmann::json& run, const std::string& key, double ms,
              std::optional<double> cpu_ms = std::nullopt) {
  const std::string name = key + "/manual_time";
  for (int i = 0; i < 3; ++i) {
    const double f = 1.0 + 0.001 * (i - 1);
    nlohmann::json row = {{"name", name},     {"run_name", name},      {"run_type", "iteration"},
                          {"repetitions", 3}, {"repetition_index", i}, {"threads", 1},
                          {"iterations", 5},  {"real_time", ms * f},   {"cpu_time", ms * f},
                          {"time_unit", "ms"}};
    if (cpu_ms) row["cpu_ms"] = *cpu_ms * f;
    run["benchmarks"].push_back(row);
  }
}

nlohmann::json night_run(int night, const std::string& backend = "cuda") {
  return {{"context",
           {{"date", fmt::format("2026-11-{:02d}T03:00:00+00:00", night + 1)},
            {"host_name", "fixture"},
            {"canzona_git_sha", fmt::format("{:012x}", 0xabc000 + night)},
            {"canzona_build_type", "Release"},
            {"canzona_config", "cuda=1,nccl=1,mpi=1,torch=0"},
            {"canzona_backend", backend},
            {"device_kind", backend == "cuda" ? "h200" : "cpu"},
            {"canzona_preset", "nightly"}}},
          {"benchmarks", nlohmann::json::array()}};
}

// The four series of the main history, night by night.
nlohmann::json four_series(int night) {
  nlohmann::json run = night_run(night);
  add_rows(run, kStable, 100.0 * jitter(night, 0));
  add_rows(run, kDrifting, 50.0 * std::pow(1.01, night) * jitter(night, 1));
  add_rows(run, kImproving, 80.0 * std::pow(0.99, night) * jitter(night, 2));
  add_rows(run, kBadNight, 60.0 * jitter(night, 3) * (night == 9 ? 1.3 : 1.0));
  return run;
}

class DriftCommandTest : public ::testing::Test {
 protected:
  // Writes a night's run as history/<name>.json.
  void write_night(const std::string& name, const nlohmann::json& run) {
    fs::create_directories(history());
    std::ofstream(history() / (name + ".json")) << run.dump();
  }
  fs::path history() const { return files_.dir() / "history"; }
  ProcessResult drift(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"drift", "--history", history().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return bench(args);
  }
  nlohmann::json read_json(const std::string& name) {
    std::ifstream in(files_.path(name));
    return nlohmann::json::parse(in);
  }
  // The row called `name` of a drift JSON report.
  static nlohmann::json row_of(const nlohmann::json& report, const std::string& name) {
    for (const nlohmann::json& row : report.at("rows")) {
      if (row.at("name") == name) return row;
    }
    ADD_FAILURE() << "no row " << name;
    return {};
  }

  FixtureFiles files_;
};

TEST_F(DriftCommandTest, DriftImprovementStableAndOneBadNight) {
  for (int night = 0; night < 14; ++night)
    write_night(fmt::format("n{:02d}", night), four_series(night));
  const ProcessResult r =
      drift({"--out", files_.path("drift.json"), "--markdown", files_.path("drift.md")});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(r.err, "");

  // +1 %/night over 14 nights is +13.8 % (1.01^13); its interval far above +3 %.
  const std::string drifting = line_containing(r.out, table_cell(kDrifting));
  EXPECT_NE(drifting.find("| real_time | 14 of 14 |"), std::string::npos) << drifting;
  EXPECT_NE(drifting.find("% over 14 nights ["), std::string::npos) << drifting;
  EXPECT_NE(drifting.find("**DRIFT**"), std::string::npos) << drifting;
  EXPECT_NE(line_containing(r.out, table_cell(kImproving)).find("**IMPROVED**"), std::string::npos)
      << r.out;
  EXPECT_NE(line_containing(r.out, table_cell(kStable)).find("**STABLE**"), std::string::npos)
      << r.out;
  // One night 30 % slow moves the median of the slopes little: no trend.
  EXPECT_NE(line_containing(r.out, table_cell(kBadNight)).find("**STABLE**"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("**Verdict**: 1 DRIFT, 1 IMPROVED, 2 STABLE → DRIFT (exit 1)"),
            std::string::npos)
      << r.out;
  // DRIFT first, then IMPROVED.
  EXPECT_LT(r.out.find(table_cell(kDrifting)), r.out.find(table_cell(kImproving)));

  const nlohmann::json report = read_json("drift.json");
  EXPECT_EQ(report.at("canzona_drift"), 1);
  EXPECT_EQ(report.at("exit_code"), 1);
  EXPECT_EQ(report.at("window").size(), 14u);
  EXPECT_EQ(report.at("window").front().at("file"), "n00.json");
  const nlohmann::json d = row_of(report, kDrifting);
  EXPECT_EQ(d.at("verdict"), "DRIFT");
  EXPECT_NEAR(d.at("slope_per_night").get<double>(), std::log(1.01), 0.001);
  EXPECT_NEAR(d.at("change").get<double>(), std::pow(1.01, 13) - 1, 0.015);
  EXPECT_GT(d.at("interval")[0].get<double>(), 0.03);
  EXPECT_LE(d.at("p_slower_holm").get<double>(), 0.05);
  EXPECT_EQ(d.at("values").size(), 14u);
  // The ends are at Holm's levels over 4 rows: the most significant at 0.05 / 4.
  EXPECT_LE(d.at("lower_level").get<double>(), 0.05);
  const nlohmann::json i = row_of(report, kImproving);
  EXPECT_NEAR(i.at("change").get<double>(), std::pow(0.99, 13) - 1, 0.015);
  EXPECT_LT(i.at("interval")[1].get<double>(), -0.03);
  const nlohmann::json b = row_of(report, kBadNight);
  EXPECT_LT(std::abs(b.at("change").get<double>()), 0.01);
  // The markdown file is the report printed.
  std::ifstream md(files_.path("drift.md"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(md), {}), r.out);
}

TEST_F(DriftCommandTest, StableRowsPassAndTheFilterSelects) {
  for (int night = 0; night < 14; ++night)
    write_night(fmt::format("n{:02d}", night), four_series(night));
  const ProcessResult r = drift({"--filter", "shampoo|muon/canzona"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("**Verdict**: 2 STABLE → no drift (exit 0)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(table_cell(kDrifting)), std::string::npos);
  // A threshold wider than the drift: the interval does not lie beyond it.
  EXPECT_EQ(drift({"--threshold", "20"}).exit_code, 0);
  EXPECT_EQ(drift({"--filter", "NoSuchRow"}).exit_code, 2);
}

TEST_F(DriftCommandTest, CpuRowsAreJudgedByCpuTimeAsAbJudgesThem) {
  // The cpu_ms counter drifts +1 %/night while the wall time stays flat, and the other way round.
  for (int night = 0; night < 10; ++night) {
    nlohmann::json run = night_run(night, "cpu");
    add_rows(run, kStable, 100.0 * jitter(night, 0),
             40.0 * std::pow(1.01, night) * jitter(night, 1));
    add_rows(run, kDrifting, 50.0 * std::pow(1.01, night) * jitter(night, 2),
             30.0 * jitter(night, 3));
    write_night(fmt::format("n{:02d}", night), run);
  }
  const ProcessResult r = drift({"--out", files_.path("drift.json")});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  const nlohmann::json report = read_json("drift.json");
  EXPECT_EQ(row_of(report, kStable).at("metric"), "cpu_ms");
  EXPECT_EQ(row_of(report, kStable).at("verdict"), "DRIFT");
  EXPECT_EQ(row_of(report, kDrifting).at("metric"), "cpu_ms");
  EXPECT_EQ(row_of(report, kDrifting).at("verdict"), "STABLE");
  EXPECT_NE(r.out.find("judged by CPU time (`cpu_ms`)"), std::string::npos) << r.out;
}

TEST_F(DriftCommandTest, TheWindowIsTheNewestRunsByDateAndOtherMachinesAreLeftOut) {
  // 20 nights: 2 % faster each night up to night 9, flat since. File names run backwards, so an
  // order by name would take the oldest nights.
  for (int night = 0; night < 20; ++night) {
    nlohmann::json run = night_run(night);
    add_rows(run, kStable, 100.0 * std::pow(0.98, std::min(night, 9)) * jitter(night, 0));
    write_night(fmt::format("z{:02d}", 19 - night), run);
  }
  // A run of another machine among them: left out, whatever its values.
  nlohmann::json other = night_run(4, "cpu");
  add_rows(other, kStable, 1.0);
  write_night("other-machine", other);

  const ProcessResult window = drift({"--last", "10", "--out", files_.path("window.json")});
  ASSERT_EQ(window.exit_code, 0) << window.err << window.out;
  const nlohmann::json report = read_json("window.json");
  EXPECT_EQ(report.at("window").size(), 10u);
  EXPECT_EQ(report.at("window").front().at("file"), "z09.json");  // night 10
  EXPECT_EQ(report.at("window").back().at("file"), "z00.json");   // night 19
  EXPECT_EQ(report.at("left_out"), nlohmann::json::array({"other-machine.json"}));
  EXPECT_EQ(report.at("runs_in_folder"), 21);
  EXPECT_EQ(row_of(report, kStable).at("verdict"), "STABLE");
  EXPECT_NE(window.out.find("the last 10 of its 21 runs, device kind h200, backend cuda (1 of "
                            "another device kind or backend left out)"),
            std::string::npos)
      << window.out;

  // All 20 nights hold the improvement.
  const ProcessResult all = drift({"--last", "20", "--out", files_.path("all.json")});
  ASSERT_EQ(all.exit_code, 0) << all.err << all.out;
  EXPECT_EQ(row_of(read_json("all.json"), kStable).at("verdict"), "IMPROVED");
}

TEST_F(DriftCommandTest, RowsInTooFewNightsAreNotJudged) {
  for (int night = 0; night < 8; ++night) {
    nlohmann::json run = night_run(night);
    add_rows(run, kStable, 100.0 * jitter(night, 0));
    // A new row, in the last 4 nights only, 5 % slower each night.
    if (night >= 4) add_rows(run, kDrifting, 50.0 * std::pow(1.05, night));
    write_night(fmt::format("n{:02d}", night), run);
  }
  const ProcessResult r = drift();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string line = line_containing(r.out, table_cell(kDrifting));
  EXPECT_NE(line.find("| 4 of 8 |"), std::string::npos) << line;
  EXPECT_NE(line.find("**TOO FEW**"), std::string::npos) << line;
  // With --min-runs 4 it is judged, but 4 nights cannot make it DRIFT at 0.025, Holm's first
  // level over two rows (a one-sided p of 0.045 at best); alone in its family they do.
  const ProcessResult two = drift({"--min-runs", "4"});
  ASSERT_EQ(two.exit_code, 0) << two.err << two.out;
  EXPECT_NE(line_containing(two.out, table_cell(kDrifting)).find("**STABLE**"), std::string::npos)
      << two.out;
  const ProcessResult alone = drift({"--min-runs", "4", "--filter", "layerwise"});
  ASSERT_EQ(alone.exit_code, 1) << alone.err << alone.out;
  EXPECT_NE(line_containing(alone.out, table_cell(kDrifting)).find("**DRIFT**"), std::string::npos)
      << alone.out;
}

TEST_F(DriftCommandTest, BadInputExitsTwoAndWritesNothing) {
  const std::string out = files_.path("drift.json");
  const std::string md = files_.path("drift.md");
  const auto expect_refused = [&](const ProcessResult& r, const std::string& fragment) {
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(md));
  };
  // No folder.
  expect_refused(drift({"--out", out, "--markdown", md}), "does not exist");
  // Two nights are not a trend.
  write_night("n00", four_series(0));
  write_night("n01", four_series(1));
  expect_refused(drift({"--out", out, "--markdown", md}),
                 "holds 2 run file(s); a drift needs at least 3 nights");
  // A file that is not a run, among good ones.
  write_night("n02", four_series(2));
  std::ofstream(history() / "n03.json") << "{\"context\": {";
  expect_refused(drift({"--out", out, "--markdown", md}), "n03.json");
  const ProcessResult malformed = drift();
  EXPECT_NE(malformed.err.find("repair this one or move it out"), std::string::npos)
      << malformed.err;
  fs::remove(history() / "n03.json");
  // A debug build's run.
  nlohmann::json debug = four_series(3);
  debug["context"]["canzona_build_type"] = "Debug";
  write_night("n03", debug);
  expect_refused(drift({"--out", out}), "benchmark numbers need a Release build");
  fs::remove(history() / "n03.json");
  // A result inside the history would be read as a run next time.
  expect_refused(drift({"--out", (history() / "drift.json").string()}),
                 "the next drift would read it as a night's run");
  EXPECT_FALSE(fs::exists(history() / "drift.json"));
  // Settings.
  expect_refused(drift({"--min-runs", "20"}), "--min-runs 20: give at least 3 and at most --last");
  expect_refused(drift({"--last", "2"}), "--last");
  expect_refused(drift({"--alpha", "0.7"}), "--alpha 0.7");
  expect_refused(drift({"--markdown", ""}), "drift --markdown needs a path");
  // And the three good nights are a history.
  EXPECT_EQ(drift({"--min-runs", "3"}).exit_code, 0);
}

}  // namespace
}  // namespace canzona::testing
