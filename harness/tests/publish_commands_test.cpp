// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `table`, `plot` and `promote` as black boxes on the fixture run: the table has the right
// lines and cells in every format with projected cells footnoted; plot writes figures that are
// PNGs of the promised size; promote refuses what must not become an accepted run and never leaves
// a half-written one.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(TableCommandTest, MarkdownHasThePaperLayoutWithProjectedCellsFootnoted) {
  FixtureFiles files;
  const ProcessResult r = bench({"table", files.write("run.json", FixtureFiles::fixture())});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Provenance first.
  EXPECT_EQ(r.out.rfind("> Run: ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("git 0123456789ab, Release build, backend cpu"), std::string::npos);
  EXPECT_NE(r.out.find("> Command: canzona-bench run --preset smoke"), std::string::npos);
  // CPU ranks and projected GPUs in one table: the column says ranks, a note says which is which.
  EXPECT_NE(r.out.find("| model | ranks | dp×tp | optimizer | canzona full step ms | sc full step "
                       "ms | layerwise full step ms | canzona vs sc, full step | canzona vs "
                       "layerwise, full step | imbalance as run (canzona / sc / layerwise) | "
                       "imbalance of plan (canzona / sc / layerwise) |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("ranks: GPUs on projected rows and on the cuda backend, MPI processes"),
            std::string::npos);
  // A measured line: medians with their spread, speed-ups baseline / canzona with the 95 %
  // interval of the repetitions (9 against 9, far from 1: no n.s. mark).
  const std::string measured = line_containing(r.out, "| qwen3-8b~d16 | 2 | 2×1 | muon |");
  ASSERT_FALSE(measured.empty()) << r.out;
  EXPECT_NE(measured.find("| 40.90 ±0.9% | 77.57 ±0.9% | 55.47 ±0.8% | 1.90× [1.88, 1.92] | "
                          "1.36× [1.34, 1.37] | 1.005 / 1.000 / 1.185 | 1.010 / 1.000 / 1.370 |"),
            std::string::npos)
      << measured;
  EXPECT_EQ(r.out.find("n.s."), std::string::npos) << r.out;
  // The metric is named, and what it can be compared with.
  EXPECT_NE(r.out.find("full step: the whole step including the DP sync"), std::string::npos);
  EXPECT_NE(r.out.find("not comparable with the paper's 5.8× (arXiv 2602.06079, abstract)"),
            std::string::npos);
  // Scaled models are explained.
  EXPECT_NE(r.out.find("\\<model\\>~d\\<k\\>: the Qwen3 model with every width"),
            std::string::npos);
  EXPECT_EQ(measured.find("†"), std::string::npos) << "a measured line has no projection mark";
  // A projected line: every cell marked, the footnote names the topology.
  const std::string projected = line_containing(r.out, "| qwen3-32b | 256 | 32×8 | muon |");
  EXPECT_NE(projected.find("| 57.80† | 6300† | 514.4† | 109.00×† | 8.90×† |"), std::string::npos)
      << projected;
  EXPECT_NE(r.out.find("a projection is deterministic, so its speed-ups carry no interval"),
            std::string::npos);
  EXPECT_NE(r.out.find("† PROJECTION on topology dgx-h100, not a measurement"), std::string::npos);
  // 6 measured + 3 projected lines.
  std::size_t lines = 0;
  for (std::size_t at = r.out.find("\n| qwen3"); at != std::string::npos;
       at = r.out.find("\n| qwen3", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 9u);
}

TEST(TableCommandTest, BaselineCompareOptimizersCsvAndLatex) {
  FixtureFiles files;
  const std::string run = files.write("run.json", FixtureFiles::fixture());

  const ProcessResult pair = bench({"table", run, "--baseline", "layerwise"});
  ASSERT_EQ(pair.exit_code, 0) << pair.err;
  EXPECT_NE(pair.out.find("| canzona full step ms | layerwise full step ms | canzona vs layerwise, "
                          "full step |"),
            std::string::npos)
      << pair.out;
  EXPECT_EQ(pair.out.find("sc full step ms"), std::string::npos);

  const ProcessResult optimizers = bench({"table", run, "--compare-optimizers"});
  ASSERT_EQ(optimizers.exit_code, 0) << optimizers.err;
  EXPECT_NE(
      optimizers.out.find("| model | ranks | dp×tp | strategy | muon full step ms | shampoo full "
                          "step ms | soap full step ms | state MiB (muon / shampoo / soap) |"),
      std::string::npos)
      << optimizers.out;
  // State per rank from the fixture: 4, 12 and 16 MiB x 64 / 2 GPUs.
  EXPECT_NE(line_containing(optimizers.out, "| qwen3-8b~d16 | 2 | 2×1 | canzona |")
                .find("| 128.0 / 384.0 / 512.0 |"),
            std::string::npos)
      << optimizers.out;

  const ProcessResult csv = bench({"table", run, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("\nfamily,model,gpus,dp,tp,optimizer,strategy,backend,params,median_ms,"),
            std::string::npos);
  // Projected: no interval; the backend is the run's; the source names the run file.
  EXPECT_NE(csv.out.find("OptimizerStep,qwen3-32b,256,32,8,muon,sc,cpu,,6300.2,0,1,,109,,,,"),
            std::string::npos)
      << csv.out;
  EXPECT_NE(csv.out.find(",1,dgx-h100," + run + "\n"), std::string::npos) << csv.out;
  // Measured: the speed-up with its interval.
  EXPECT_NE(csv.out.find("OptimizerStep,qwen3-8b~d16,2,2,1,muon,sc,cpu,,77.5726325720719,"),
            std::string::npos)
      << csv.out;

  const ProcessResult latex = bench({"table", run, "--format", "latex"});
  ASSERT_EQ(latex.exit_code, 0) << latex.err;
  // The packages it needs named first; one float per model, the model in its caption.
  EXPECT_EQ(latex.out.rfind("% Needs \\usepackage{booktabs} and \\usepackage{graphicx}", 0), 0u)
      << latex.out;
  EXPECT_NE(latex.out.find("\\caption{OptimizerStep --- optimizer step latency, "
                           "qwen3-8b\\textasciitilde{}d16 (ms, median $\\pm$ relative spread)}"),
            std::string::npos)
      << latex.out;
  EXPECT_NE(latex.out.find("\\begin{tabular}{@{}lllrrrrr@{}}"), std::string::npos) << latex.out;
  EXPECT_NE(latex.out.find("2 & 2$\\times$1 & muon & 40.90 $\\pm$0.9\\% & 77.57 $\\pm$0.9\\% & "
                           "55.47 $\\pm$0.8\\% & 1.90$\\times$ [1.88, 1.92] & 1.36$\\times$ "
                           "[1.34, 1.37] \\\\\n"),
            std::string::npos)
      << latex.out;
  // Provenance in the notes the reader sees, not only in comments; no line ends with \\ there.
  EXPECT_NE(latex.out.find("git 0123456789ab,\\allowbreak{} Release build"), std::string::npos)
      << latex.out;
  EXPECT_EQ(latex.out.find("% Run:"), std::string::npos) << latex.out;
  EXPECT_EQ(latex.out.find("\\par\\footnotesize \\\\"), std::string::npos);
  EXPECT_NE(latex.out.find("57.80$^\\dagger$"), std::string::npos);
  EXPECT_NE(latex.out.find("PROJECTION on topology dgx-h100"), std::string::npos);
}

// Names and context values come from a file anyone can edit: in every format they stay inside
// their cell or comment (no new row or line, no LaTeX command, no HTML, no spreadsheet formula).
TEST(TableCommandTest, TextFromTheRunFileStaysInItsCell) {
  FixtureFiles files;
  nlohmann::json hostile = FixtureFiles::fixture();
  for (auto& row : hostile["benchmarks"]) {
    for (const char* key : {"name", "run_name"}) {
      if (!row.contains(key)) continue;
      std::string name = row[key];
      const std::size_t at = name.find("qwen3-8b~d16");
      if (at != std::string::npos) row[key] = name.replace(at, 12, "=cmd|x<b>~a~");
    }
  }
  hostile["context"]["host_name"] = "evil\n| injected | row |\n\\input{secret}";
  hostile["context"]["canzona_command"] = "run\r\n# forged\n=2+2";
  const std::string run = files.write("hostile.json", hostile);
  auto lines_starting = [](const std::string& text, const std::string& prefix) {
    int count = 0;
    std::size_t at = 0;
    while (at < text.size()) {
      if (text.compare(at, prefix.size(), prefix) == 0) ++count;
      at = text.find('\n', at);
      at = at == std::string::npos ? text.size() : at + 1;
    }
    return count;
  };

  const ProcessResult md = bench({"table", run});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(lines_starting(md.out, "| injected"), 0) << md.out;
  EXPECT_NE(md.out.find("> Host: evil\\\\n\\| injected \\| row \\|"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| =cmd\\|x\\<b\\>\\~a\\~ | 2 | 2×1 | muon |"), std::string::npos)
      << md.out;

  const ProcessResult latex = bench({"table", run, "--format", "latex"});
  ASSERT_EQ(latex.exit_code, 0) << latex.err;
  EXPECT_EQ(lines_starting(latex.out, "\\input"), 0) << latex.out;
  EXPECT_EQ(lines_starting(latex.out, "# forged"), 0) << latex.out;
  EXPECT_NE(latex.out.find(
                "=\\allowbreak{}cmd\\textbar{}x\\textless{}b\\textgreater{}\\textasciitilde{}a"),
            std::string::npos)
      << latex.out;

  const ProcessResult csv = bench({"table", run, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(lines_starting(csv.out, "| injected"), 0) << csv.out;
  EXPECT_EQ(lines_starting(csv.out, "=2+2"), 0) << csv.out;
  EXPECT_NE(csv.out.find("OptimizerStep,'=cmd|x<b>~a~,2,2,1,muon,canzona,"), std::string::npos)
      << csv.out;
}

TEST(TableCommandTest, BadInputExitsTwo) {
  FixtureFiles files;
  const std::string run = files.write("run.json", FixtureFiles::fixture());
  const ProcessResult unknown = bench({"table", run, "--baseline", "magic"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no 'magic' rows"), std::string::npos) << unknown.err;
  EXPECT_TRUE(unknown.out.empty());
  const ProcessResult nothing = bench({"table", run, "--filter", "^Kernels/"});
  EXPECT_EQ(nothing.exit_code, 2);
  nlohmann::json debug = FixtureFiles::fixture();
  debug["context"]["canzona_build_type"] = "Debug";
  EXPECT_EQ(bench({"table", files.write("debug.json", debug)}).exit_code, 2);
}

// Width and height from a PNG's IHDR chunk (bytes 16..23, big-endian).
std::array<std::uint32_t, 2> png_size(const fs::path& path) {
  const std::string bytes = read_text(path);
  EXPECT_GE(bytes.size(), 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << path;
  EXPECT_EQ(bytes.substr(12, 4), "IHDR") << path;
  auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

TEST(PlotCommandTest, RunFiguresArePngsOfTheFixedSize) {
  FixtureFiles files;
  const std::string run = files.write("run.json", FixtureFiles::fixture());
  const fs::path out = files.dir() / "figures";
  const ProcessResult r = bench({"plot", run, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Progress, a line per figure as it is written.
  EXPECT_NE(r.out.find("figure 1/8: latency_OptimizerStep_muon_qwen3-8b_d16.png\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("figure 8/8: "), std::string::npos) << r.out;
  for (const char* name :
       {"latency_OptimizerStep_muon_qwen3-32b.png", "latency_OptimizerStep_soap_qwen3-8b_d16.png",
        "phases_muon_qwen3-8b_d16.png", "phases_muon_qwen3-32b.png"}) {
    ASSERT_TRUE(fs::exists(out / name)) << name << "\n" << r.out;
    EXPECT_EQ(png_size(out / name), (std::array<std::uint32_t, 2>{800, 500})) << name;
  }
  // 4 latency figures (3 optimizers at 8B, Muon at 32B) + 4 phase figures (one per optimizer
  // and model, a panel per configuration), nothing else left.
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(out)) {
    EXPECT_EQ(entry.path().extension(), ".png") << entry.path();
    ++count;
  }
  EXPECT_EQ(count, 8u);
}

TEST(PlotCommandTest, PlansHistoryAndBadInput) {
  FixtureFiles files;
  const ProcessResult plan =
      bench({"plan", "--model", "qwen3-8b", "--dp", "8", "--strategy", "layerwise", "--json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const std::string plan_file = files.write_text("plan.json", plan.out);
  const fs::path out = files.dir() / "figures";
  const ProcessResult loads =
      bench({"plot", "--plan", plan_file, "--out", out.string(), "--format", "svg"});
  ASSERT_EQ(loads.exit_code, 0) << loads.err;
  EXPECT_NE(read_text(out / "rank_loads.svg").find("<svg"), std::string::npos);

  fs::create_directories(files.dir() / "nightly");
  nlohmann::json night = FixtureFiles::fixture();
  std::ofstream(files.dir() / "nightly" / "a.json") << night.dump();
  night["context"]["date"] = "2026-11-23T08:00:00+00:00";
  scale_times(night, "OptimizerStep/muon/canzona/qwen3-8b~d16/gpus:2/dp:2/tp:1", 1.1);
  std::ofstream(files.dir() / "nightly" / "b.json") << night.dump();
  const ProcessResult all =
      bench({"plot", "--history", (files.dir() / "nightly").string(), "--out", out.string()});
  EXPECT_EQ(all.exit_code, 2) << "27 benchmarks are too many lines for one trend";
  EXPECT_NE(all.err.find("narrow it with --filter"), std::string::npos) << all.err;
  const ProcessResult trend =
      bench({"plot", "--history", (files.dir() / "nightly").string(), "--out", out.string(),
             "--filter", "^OptimizerStep/muon/canzona/qwen3-8b"});
  ASSERT_EQ(trend.exit_code, 0) << trend.err;
  EXPECT_EQ(png_size(out / "history.png"), (std::array<std::uint32_t, 2>{800, 500}));

  EXPECT_EQ(bench({"plot", "--out", out.string()}).exit_code, 2) << "no input";
  EXPECT_EQ(bench({"plot", plan_file, "--out", out.string()}).exit_code, 2) << "a plan as a run";
}

class PromoteCommandTest : public ::testing::Test {
 protected:
  ProcessResult promote(const nlohmann::json& run, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"promote", files_.write("run.json", run), "--to",
                                     accepted_dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return bench(args);
  }
  fs::path accepted_dir() const { return files_.dir() / "accepted" / "cpu"; }
  fs::path accepted() const { return accepted_dir() / "smoke.json"; }

  FixtureFiles files_;
};

TEST_F(PromoteCommandTest, WritesTheRunByteForByteAndPrintsTheDiff) {
  const nlohmann::json run = FixtureFiles::fixture();
  const ProcessResult first = promote(run);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("no accepted run at"), std::string::npos) << first.out;
  EXPECT_EQ(read_text(accepted()), read_text(files_.dir() / "run.json"));

  nlohmann::json slower = run;
  scale_times(slower, "OptimizerStep/soap/sc/qwen3-8b~d16/gpus:2/dp:1/tp:2", 1.3);
  const ProcessResult second = promote(slower);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("`OptimizerStep/soap/sc/qwen3-8b~d16/gpus:2/dp:1/tp:2`"),
            std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("+30.0%"), std::string::npos) << second.out;
  EXPECT_EQ(read_text(accepted()), read_text(files_.dir() / "run.json"));
}

TEST_F(PromoteCommandTest, RefusesWhatMustNotBecomeAReferenceAndWritesNothing) {
  const nlohmann::json good = FixtureFiles::fixture();
  ASSERT_EQ(promote(good).exit_code, 0);
  const std::string before = read_text(accepted());

  auto expect_refused = [&](const nlohmann::json& run, const std::string& fragment) {
    const ProcessResult r = promote(run);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(read_text(accepted()), before) << "the accepted run changed";
  };
  nlohmann::json debug = good;
  debug["context"]["canzona_build_type"] = "Debug";
  expect_refused(debug, "built as 'Debug'");
  nlohmann::json dirty = good;
  dirty["context"]["canzona_git_sha"] = "0123456789ab-dirty";
  expect_refused(dirty, "uncommitted changes");
  nlohmann::json failed = good;
  failed["benchmarks"][0] = {{"name", failed["benchmarks"][0]["name"]},
                             {"run_name", failed["benchmarks"][0]["run_name"]},
                             {"error_occurred", true},
                             {"error_message", "rank 1: NCCL timeout"}};
  expect_refused(failed, "rank 1: NCCL timeout");
  nlohmann::json projected_only = good;
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& row : projected_only["benchmarks"]) {
    if (row["name"].get<std::string>().find("/projected") != std::string::npos) kept.push_back(row);
  }
  projected_only["benchmarks"] = kept;
  expect_refused(projected_only, "every row is projected");
  nlohmann::json gpu = good;
  gpu["context"]["device_kind"] = "h100-x1";
  expect_refused(gpu, "results/accepted/h100-x1/");
  // A name read from the run is one file inside --to, never a path out of it.
  for (const std::string bad : {"../../escaped", "/tmp/escaped", "..", "sub/dir"}) {
    nlohmann::json escaping = good;
    escaping["context"]["canzona_preset"] = bad;
    expect_refused(escaping, "is not a plain file name");
  }
  EXPECT_FALSE(fs::exists(files_.dir() / "escaped.json")) << "promote wrote outside --to";
  EXPECT_FALSE(fs::exists(accepted_dir() / "sub")) << "promote made a folder inside --to";

  // A folder that cannot be written: an error, the old accepted run intact, no temporary left.
  ASSERT_EQ(chmod(accepted_dir().c_str(), 0555), 0);
  nlohmann::json newer = good;
  newer["context"]["date"] = "2026-12-01T00:00:00+00:00";
  const ProcessResult locked = promote(newer);
  chmod(accepted_dir().c_str(), 0755);
  if (geteuid() != 0) {  // root writes anyway
    EXPECT_EQ(locked.exit_code, 2) << locked.out;
    EXPECT_EQ(read_text(accepted()), before);
  }
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(accepted_dir())) ++entries;
  EXPECT_EQ(entries, 1u) << "a temporary file was left beside the accepted run";
}

}  // namespace
}  // namespace canzona::testing
