// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `ab` end to end on fake sides (fixtures/fake_canzona_bench.py: runs that write known values,
// measure nothing), so every verdict is known in advance and no test depends on timing: SAME,
// a confirmed SLOWER, INCONCLUSIVE rows that get more pairs and end NOISY, MISSING, a
// deterministic change with and without the allow-list, and bad input refused before the first
// sample.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

namespace fs = std::filesystem;

// Names with the characters a filter must escape ('+', '.', '~').
const std::vector<std::string> kRows = {
    "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1/manual_time",
    "OptimizerStep/muon/canzona+sc/qwen3-0.6b~d16/gpus:2/dp:1/tp:2/manual_time",
};

// Writes a side: its configuration and a script that runs the fake with it.
std::string fake_side(const FixtureFiles& files, const std::string& side, nlohmann::json config) {
  config["state"] = files.path(side + ".count");
  if (!config.contains("rows")) config["rows"] = kRows;
  const std::string config_path = files.write(side + ".json", config);
  const std::string script =
      files.write_text(side + ".sh", "#!/bin/sh\nexec /usr/bin/python3 " CANZONA_FIXTURE_DIR
                                     "/fake_canzona_bench.py " +
                                         config_path + " \"$@\"\n");
  ::chmod(script.c_str(), 0755);
  return script;
}

int samples_taken(const FixtureFiles& files, const std::string& side) {
  std::ifstream in(files.path(side + ".count"));
  int count = 0;
  in >> count;
  return count;
}

ProcessResult ab(const std::string& base, const std::string& head,
                 std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"ab", "--base", base, "--head", head, "--seed", "11"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_process(CANZONA_BENCH_EXE, args);
}

// The verdict cell of a row in the report.
std::string verdict_of(const std::string& report, const std::string& key) {
  const std::size_t at = report.find("| `" + key + "` |");
  if (at == std::string::npos) return "";
  const std::string line = report.substr(at, report.find('\n', at) - at);
  const std::size_t open = line.find("**");
  if (open == std::string::npos) return "";
  return line.substr(open + 2, line.find("**", open + 2) - open - 2);
}

const std::string kFirst = "OptimizerStep/muon/canzona/qwen3-0.6b~d16/gpus:2/dp:2/tp:1";
const std::string kSecond = "OptimizerStep/muon/canzona+sc/qwen3-0.6b~d16/gpus:2/dp:1/tp:2";

TEST(AbCommandTest, IdenticalSidesAreSameWithTheirIntervals) {
  FixtureFiles files;
  const std::string base =
      fake_side(files, "base", {{"ms", 100.0}, {"jitter", {0.0, 0.004, -0.003, 0.001, -0.002}}});
  const std::string head =
      fake_side(files, "head", {{"ms", 100.0}, {"jitter", {0.002, -0.004, 0.003, 0.0, -0.001}}});
  const ProcessResult r = ab(base, head, {"--out", files.path("ab.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(verdict_of(r.out, kFirst), "SAME") << r.out;
  EXPECT_EQ(verdict_of(r.out, kSecond), "SAME") << r.out;
  EXPECT_NE(r.out.find("→ pass (exit 0)"), std::string::npos) << r.out;
  // Five pairs, each side's samples in a balanced order: as often first as second.
  EXPECT_EQ(samples_taken(files, "base"), 5);
  EXPECT_EQ(samples_taken(files, "head"), 5);
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(files.path("ab.json")));
  ASSERT_EQ(j["rows"].size(), 2u);
  const nlohmann::json& pairs = j["rows"][0]["pairs"];
  ASSERT_EQ(pairs.size(), 5u);
  const auto ab_first = std::count_if(pairs.begin(), pairs.end(),
                                      [](const nlohmann::json& p) { return p["order"] == "AB"; });
  EXPECT_TRUE(ab_first == 2 || ab_first == 3) << pairs.dump();
  EXPECT_EQ(j["rows"][0]["metric"], "cpu_ms");
  // Each pair also keeps the time column (the fake's real_time is 1.4 x its cpu_ms).
  EXPECT_NEAR(pairs[0]["base_time"].get<double>(), 1.4 * pairs[0]["base"].get<double>(), 1e-9);
  EXPECT_NEAR(pairs[0]["head_time"].get<double>(), 1.4 * pairs[0]["head"].get<double>(), 1e-9);
  EXPECT_EQ(j["settings"]["seed"], "11");
  EXPECT_EQ(j["exit_code"], 0);
}

TEST(AbCommandTest, ASlowerHeadIsConfirmedAndFails) {
  FixtureFiles files;
  const nlohmann::json jitter = {0.0, 0.01, -0.01, 0.005, -0.005};
  const std::string base = fake_side(files, "base", {{"ms", 100.0}, {"jitter", jitter}});
  const std::string head =
      fake_side(files, "head",
                {{"ms", 100.0}, {"factor", 1.3}, {"jitter", {0.005, -0.01, 0.0, 0.01, -0.005}}});
  const ProcessResult r = ab(base, head);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(verdict_of(r.out, kFirst), "SLOWER") << r.out;
  EXPECT_EQ(verdict_of(r.out, kSecond), "SLOWER") << r.out;
  EXPECT_NE(r.out.find("↳ confirmation"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("confirming 2 SLOWER row(s)"), std::string::npos) << r.err;
  // The change with its interval: +30 % inside it.
  EXPECT_NE(r.out.find("+30.0 % ["), std::string::npos) << r.out;
  EXPECT_EQ(samples_taken(files, "head"), 10);  // five pairs, five more to confirm
  EXPECT_NE(r.out.find("→ FAIL (exit 1)"), std::string::npos) << r.out;
}

TEST(AbCommandTest, NoiseGetsMorePairsThenEndsNoisyWithoutFailing) {
  FixtureFiles files;
  const std::string base = fake_side(files, "base", {{"ms", 100.0}});
  // ±20 % from sample to sample: no interval fits inside ±3 % or above +3 %.
  const std::string head =
      fake_side(files, "head", {{"ms", 100.0}, {"jitter", {0.2, -0.2, 0.15, -0.15, 0.0, 0.1}}});
  const ProcessResult r = ab(base, head, {"--pairs", "3", "--more-pairs", "2", "--max-pairs", "7"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(verdict_of(r.out, kFirst), "NOISY") << r.out;
  EXPECT_NE(r.err.find("2 row(s) INCONCLUSIVE: 2 more pair(s)"), std::string::npos) << r.err;
  EXPECT_EQ(samples_taken(files, "head"), 7);  // 3, then 2 and 2 more: the cap
}

TEST(AbCommandTest, ARowTheHeadLacksIsMissing) {
  FixtureFiles files;
  const std::string base = fake_side(files, "base", {{"ms", 100.0}});
  const std::string head = fake_side(files, "head", {{"ms", 100.0}, {"rows", {kRows[0]}}});
  const ProcessResult r = ab(base, head);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_EQ(verdict_of(r.out, kSecond), "MISSING") << r.out;
  EXPECT_EQ(verdict_of(r.out, kFirst), "SAME") << r.out;
}

TEST(AbCommandTest, ADeterministicChangeFailsUnlessTheAllowListDeclaresIt) {
  FixtureFiles files;
  const std::string base = fake_side(files, "base", {{"ms", 100.0}});
  const std::string head = fake_side(files, "head", {{"ms", 100.0}, {"plan_hash", "bbbb"}});
  const ProcessResult refused = ab(base, head, {"--pairs", "2"});
  EXPECT_EQ(refused.exit_code, 1) << refused.err << refused.out;
  EXPECT_NE(refused.out.find("| plan_hash | aaaa | bbbb | **not allowed** |"), std::string::npos)
      << refused.out;

  const std::string allowed =
      files.write_text("allowed.txt",
                       "# a new partitioner, reviewed\ncanzona\\+sc plan_hash\n"
                       "dp:2/tp:1 plan_hash  # and the other\n");
  const ProcessResult passed = ab(base, head, {"--pairs", "2", "--allowed-changes", allowed});
  EXPECT_EQ(passed.exit_code, 0) << passed.err << passed.out;
  EXPECT_NE(passed.out.find("| plan_hash | aaaa | bbbb | allowed |"), std::string::npos)
      << passed.out;
}

TEST(AbCommandTest, BadInputIsRefusedBeforeTheFirstSample) {
  FixtureFiles files;
  const std::string side = fake_side(files, "base", {{"ms", 100.0}});
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"ab", "--base", files.path("nothing"), "--head", side}, "is not an executable file"},
      {{"ab", "--base", side, "--head", side, "--margin", "5"}, "at most --threshold"},
      {{"ab", "--base", side, "--head", side, "--pairs", "1"}, "at least 2 pairs"},
      {{"ab", "--base", side, "--head", side, "--max-pairs", "3"}, "is below --pairs 5"},
      {{"ab", "--base", side, "--head", side, "--seed", "-4"}, "--seed"},
      {{"ab", "--base", side, "--head", side, "--out", files.dir().string()}, "it is a directory"},
      {{"ab", "--base", side, "--head", side, "--allowed-changes", files.path("none.txt")},
       "allow-list"},
      {{"ab", "--base", side, "--head", side, "--allowed-changes",
        files.write_text("bad.txt", "only-one-field\n")},
       "bad.txt:1"},
  };
  for (const auto& [args, message] : cases) {
    const ProcessResult r = run_process(CANZONA_BENCH_EXE, args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(samples_taken(files, "base"), 0) << "a sample was taken before the input was checked";

  // A side whose run refuses its arguments: exit 2, naming the side.
  const std::string refusing = fake_side(files, "head", {{"ms", 100.0}, {"exit_code", 2}});
  const ProcessResult r = ab(side, refusing, {"--out", files.path("ab.json")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the head side's run failed with exit code 2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(files.path("ab.json")));
}

}  // namespace
}  // namespace canzona::testing
