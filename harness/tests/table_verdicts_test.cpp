// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What `table` concludes, as a black box on variations of the fixture run: a speed-up that the
// repetitions cannot tell from 1.00× is marked n.s.; the paper's metric (the optimizer step with
// the DP sync hidden) stands beside the full step, each named; several runs merge into one
// table, and the same benchmark in two of them is refused.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace canzona::testing {
namespace {

bool is_repetition(const nlohmann::json& row) { return row.value("run_type", "") == "iteration"; }

std::string name_of(const nlohmann::json& row) { return row.value("run_name", row["name"]); }

// The fixture with layer-wise's repetitions of one configuration replaced by Canzona's, each
// slowed by `factor` and taken in reverse order: the same work, as two plans that move the same
// bytes would measure it.
nlohmann::json with_layerwise_as_canzona(double factor) {
  nlohmann::json run = FixtureFiles::fixture();
  const std::string canzona =
      "OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1/manual_time";
  const std::string layerwise =
      "OptimizerStep/muon/layerwise/qwen3-8b~d16/gpus:2/dp:2/tp:1/manual_time";
  std::vector<double> times;
  for (const auto& row : run["benchmarks"]) {
    if (is_repetition(row) && name_of(row) == canzona) times.push_back(row["real_time"]);
  }
  EXPECT_EQ(times.size(), 9u);
  for (auto& row : run["benchmarks"]) {
    if (!is_repetition(row) || name_of(row) != layerwise) continue;
    row["real_time"] = times.back() * factor;
    times.pop_back();
  }
  return run;
}

TEST(TableVerdictsTest, ASpeedupTheRepetitionsCannotTellFromOneIsMarked) {
  FixtureFiles files;
  // 1 % slower against a spread of about 1 %: not distinguishable.
  const ProcessResult same =
      bench({"table", files.write("same.json", with_layerwise_as_canzona(1.01))});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  const std::string line = line_containing(same.out, "| qwen3-8b~d16 | 2 | 2×1 | muon |");
  EXPECT_NE(line.find("| 1.01× ["), std::string::npos) << line;
  EXPECT_NE(line.find("] n.s. |"), std::string::npos) << line;
  EXPECT_NE(same.out.find("n.s.: not distinguishable from 1.00×"), std::string::npos) << same.out;
  // The other configurations keep their clear speed-ups, unmarked.
  const std::string other = line_containing(same.out, "| qwen3-8b~d16 | 2 | 1×2 | muon |");
  EXPECT_NE(other.find("| 1.35× [1.34, 1.36] |"), std::string::npos) << other;

  // 10 % slower is far outside a 1 % spread: a speed-up, without the mark.
  const ProcessResult slower =
      bench({"table", files.write("slower.json", with_layerwise_as_canzona(1.10))});
  ASSERT_EQ(slower.exit_code, 0) << slower.err;
  const std::string marked = line_containing(slower.out, "| qwen3-8b~d16 | 2 | 2×1 | muon |");
  EXPECT_NE(marked.find("| 1.10× ["), std::string::npos) << marked;
  EXPECT_EQ(slower.out.find("n.s."), std::string::npos) << slower.out;

  // LaTeX marks the same cell.
  const ProcessResult latex = bench(
      {"table", files.write("same2.json", with_layerwise_as_canzona(1.01)), "--format", "latex"});
  ASSERT_EQ(latex.exit_code, 0) << latex.err;
  EXPECT_NE(latex.out.find("]$^{\\mathrm{ns}}$"), std::string::npos) << latex.out;
}

TEST(TableVerdictsTest, ThePapersMetricStandsBesideTheFullStep) {
  FixtureFiles files;
  nlohmann::json run = FixtureFiles::fixture();
  // Projected rows carry the optimizer step with the DP sync hidden (counter optimizer_ms).
  for (auto& row : run["benchmarks"]) {
    if (name_of(row).find("/projected") == std::string::npos) continue;
    row["optimizer_ms"] = row["real_time"].get<double>() / 4;
  }
  const ProcessResult r = bench(
      {"table", files.write("run.json", run), "--baseline", "layerwise", "--filter", "projected"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("| model | GPUs | dp×tp | optimizer | canzona opt. step ms | layerwise "
                       "opt. step ms | canzona vs layerwise, opt. step | canzona full step ms | "
                       "layerwise full step ms | canzona vs layerwise, full step |"),
            std::string::npos)
      << r.out;
  const std::string line = line_containing(r.out, "| qwen3-32b | 256 | 32×8 | muon |");
  EXPECT_NE(line.find("| 14.45† | 128.6† | 8.90×† | 57.80† | 514.4† | 8.90×† |"), std::string::npos)
      << line;
  EXPECT_NE(r.out.find("opt. step: the optimizer step with the DP gradient reduce-scatter and "
                       "parameter all-gather hidden"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("the figure comparable in kind with its 5.8× (arXiv 2602.06079, abstract"),
            std::string::npos);
  EXPECT_NE(r.out.find("full step: the whole step including the DP sync; no figure of the paper"),
            std::string::npos);
}

TEST(TableVerdictsTest, SeveralRunsMergeIntoOneTable) {
  FixtureFiles files;
  nlohmann::json measured = FixtureFiles::fixture();
  nlohmann::json projected = FixtureFiles::fixture();
  auto keep = [](nlohmann::json& run, bool projections) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : run["benchmarks"]) {
      if ((name_of(row).find("/projected") != std::string::npos) == projections) {
        rows.push_back(row);
      }
    }
    run["benchmarks"] = rows;
  };
  keep(measured, false);
  keep(projected, true);
  projected["context"]["host_name"] = "second-host";
  const std::string a = files.write("measured.json", measured);
  const std::string b = files.write("projected.json", projected);
  const std::string whole = files.write("whole.json", FixtureFiles::fixture());

  const ProcessResult merged = bench({"table", a, b});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  const ProcessResult single = bench({"table", whole});
  ASSERT_EQ(single.exit_code, 0) << single.err;
  // Both runs' provenance, then the same table as the run that held every row.
  EXPECT_NE(merged.out.find("> Run: " + a), std::string::npos) << merged.out;
  EXPECT_NE(merged.out.find("> Host: second-host"), std::string::npos) << merged.out;
  const auto table_part = [](const std::string& text) { return text.substr(text.find("### ")); };
  EXPECT_EQ(table_part(merged.out), table_part(single.out));

  // The same benchmark in two runs: which one to show is the user's choice.
  const ProcessResult twice = bench({"table", a, whole});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find(a + " and " + whole + ": two rows for"), std::string::npos) << twice.err;
  EXPECT_TRUE(twice.out.empty()) << twice.out;
}

}  // namespace
}  // namespace canzona::testing
