// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench project` and `calibrate` end to end: JSON and text labelled as projections,
// every strategy with its phases, a calibrated topology file feeding a measured projection, and
// bad input exiting 2 with nothing on stdout and no file written.
#include <canzona/testing/run_process.hpp>

#include <canzona/testing/seed.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

namespace fs = std::filesystem;

class ProjectCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::fprintf(stderr, "CANZONA_TEST_SEED=%llu\n", static_cast<unsigned long long>(test_seed()));
    rng_.seed(test_seed());
    dir_ = fs::temp_directory_path() /
           fmt::format("canzona-project-{}-{}", test_seed(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }

  // A Qwen3-shaped model small enough to measure on the cpu backend in milliseconds.
  std::string tiny_model() const {
    return write("tiny.json",
                 R"({"name": "tiny", "hidden_size": 64, "intermediate_size": 96,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                     "head_dim": 16, "vocab_size": 256})");
  }

  static ProcessResult bench(std::vector<std::string> args) {
    return run_process(CANZONA_BENCH_EXE, args);
  }

  std::mt19937_64 rng_;
  fs::path dir_;
};

TEST_F(ProjectCommandTest, JsonHasEveryStrategyWithItsPhasesAndIsLabelled) {
  const int tp = std::vector<int>{1, 2, 4}[std::uniform_int_distribution<int>(0, 2)(rng_)];
  const int dp = std::uniform_int_distribution<int>(1, 8)(rng_);
  const ProcessResult r = bench({"project", "--model", "qwen3-0.6b", "--gpus",
                                 std::to_string(dp * tp), "--tp", std::to_string(tp), "--optimizer",
                                 "muon", "--strategy", "canzona,sc,layerwise", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["projection"], true);
  EXPECT_EQ(j["topology"]["name"], "dgx-h100");
  EXPECT_EQ(j["dp"], dp);
  EXPECT_EQ(j["tp"], tp);
  EXPECT_NE(j["compute_source"].get<std::string>().find("cost-model FLOPs / assumed rate"),
            std::string::npos);
  ASSERT_EQ(j["strategies"].size(), 3u);
  for (const auto& s : j["strategies"]) {
    SCOPED_TRACE(s["strategy"].get<std::string>());
    EXPECT_EQ(s["projection"], true);
    EXPECT_GT(s["step_ms"].get<double>(), 0.0);
    for (const char* phase : {"grad_sync", "update", "tp_gather", "compute", "tp_scatter",
                              "param_sync", "exposed_comm", "idle"}) {
      EXPECT_TRUE(s["phases"].contains(phase)) << phase;
    }
  }
  EXPECT_TRUE(j["canzona_speedup_vs"].contains("sc"));
}

TEST_F(ProjectCommandTest, TextTableSaysProjectionAndWritesAtomicallyWithOut) {
  const ProcessResult text = bench({"project", "--model", "qwen3-1.7b", "--gpus", "32", "--tp", "4",
                                    "--optimizer", "soap", "--topology", "dgx-a100"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("PROJECTION (not a measurement)"), std::string::npos);
  EXPECT_NE(text.out.find("topology 'dgx-a100'"), std::string::npos);
  EXPECT_NE(text.out.find("canzona vs sc"), std::string::npos);

  const std::string out = file("p.json");
  const ProcessResult written = bench({"project", "--model", "qwen3-1.7b", "--gpus", "32", "--tp",
                                       "4", "--optimizer", "muon", "--json", "--out", out});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_NE(written.out.find("projection written to"), std::string::npos);
  std::ifstream in(out);
  EXPECT_EQ(nlohmann::json::parse(in)["strategies"].size(), 3u);
}

TEST_F(ProjectCommandTest, BadInputExitsTwoWithNothingOnStdout) {
  const std::vector<std::vector<std::string>> cases = {
      {"--gpus", "6", "--tp", "4"},                    // dp not whole
      {"--gpus", "8", "--topology", "dgx-b300"},       // unknown preset, no such file
      {"--gpus", "8", "--strategy", "canzona,bogus"},  // unknown strategy
      {"--gpus", "8", "--uneven", "sometimes"},        // CLI choice
      {"--gpus", "8", "--compute", "cost-model", "--topology", "__FILE__"},  // no device
      {"--gpus", "8", "--preset", "nemo"},                                   // unknown preset
      {"--gpus", "24", "--tp", "3", "--split", "qkv"},  // the split does not fit the heads
      {"--gpus", "8", "--split", "qkv-per-head"},       // per-head needs qkv
      {"--gpus", "8", "--gemm-efficiency", "0.7,0.4"},  // not increasing
      {"--gpus", "8", "--gemm-efficiency", "0,0.5"},    // outside (0, 1]
      {"--gpus", "8", "--compute", "measured", "--gemm-efficiency", "0.5"},  // not applicable
      {"--gpus", "8", "--tp-execution", "eager"},                            // unknown
  };
  nlohmann::json no_device = nlohmann::json::parse(R"({"name": "bare", "gpus_per_node": 8,
      "intra_node": {"step_latency_us": 1, "busbw_gbps": 100},
      "inter_node": {"step_latency_us": 5, "busbw_gbps": 10}})");
  const std::string bare = write("bare.json", no_device.dump());
  for (std::vector<std::string> extra : cases) {
    for (std::string& a : extra) {
      if (a == "__FILE__") a = bare;
    }
    std::vector<std::string> args = {"project", "--model", "qwen3-0.6b",      "--optimizer",
                                     "muon",    "--out",   file("never.json")};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult r = bench(args);
    SCOPED_TRACE(fmt::format("{}", fmt::join(extra, " ")));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(r.err.empty());
    EXPECT_FALSE(fs::exists(file("never.json")));
  }
}

TEST_F(ProjectCommandTest, PresetSplitBandHeadlineAndUnknownsAreReported) {
  const ProcessResult r =
      bench({"project", "--model", "qwen3-1.7b", "--gpus", "16", "--tp", "2", "--optimizer", "muon",
             "--strategy", "canzona,sc,layerwise,canzona+sc", "--preset", "canzona-reference",
             "--split", "fc1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["preset"]["name"], "canzona-reference");
  EXPECT_EQ(j["preset"]["overrides"], nlohmann::json::array({"--split fc1"}));
  EXPECT_NE(j["settings"].get<std::string>().find("TP execution serial"), std::string::npos);
  EXPECT_NE(j["settings"].get<std::string>().find("split fc1"), std::string::npos);
  EXPECT_NE(j["unknowns"].get<std::string>().find("sequence length"), std::string::npos);
  ASSERT_EQ(j["bands"].size(), 3u);
  // The band is centred on the topology's device efficiency, the one `run` projects with.
  EXPECT_DOUBLE_EQ(j["gemm_efficiency"].get<double>(), 0.6);
  const auto& headline = j["canzona_speedup_vs"]["layerwise"];
  ASSERT_EQ(headline["band"].size(), 3u);
  // More efficient GEMMs shrink the compute that Canzona balances better, so the ratio moves
  // with the band; it is printed for every point, never as a single number.
  EXPECT_GT(headline["band"][0]["step"].get<double>(), 0.0);
  EXPECT_NE(j["canzona_speedup_vs"]["sc"]["label"].get<std::string>().find("fully replicated"),
            std::string::npos);
  EXPECT_NE(j["canzona_speedup_vs"]["canzona+sc"]["label"].get<std::string>().find("TP-SC only"),
            std::string::npos);

  const ProcessResult text = bench(
      {"project", "--model", "qwen3-1.7b", "--gpus", "16", "--tp", "2", "--optimizer", "muon"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::size_t layerwise = text.out.find("canzona vs layerwise");
  const std::size_t sc = text.out.find("canzona vs sc");
  ASSERT_NE(layerwise, std::string::npos) << text.out;
  ASSERT_NE(sc, std::string::npos) << text.out;
  EXPECT_LT(layerwise, sc) << "layer-wise is the headline";
  EXPECT_NE(text.out.find("GEMM efficiency 40 % / 60 % / 80 %"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("NVIDIA layer-wise, a baseline of the paper: its footnote 1"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("not known to this projection"), std::string::npos);
}

TEST_F(ProjectCommandTest, CalibratedTopologyFileDrivesAMeasuredProjection) {
  // An all-reduce table in nccl-tests' format: alpha 20 µs, busbw 150 GB/s on 8 ranks.
  const double alpha = std::uniform_real_distribution<double>(10, 40)(rng_);
  std::string text = "# Collective test starting: all_reduce_perf\n";
  for (int r = 0; r < 8; ++r) {
    text += fmt::format("#  Rank {} Group 0 Pid {} on host-a device {} [0x{:02x}] NVIDIA H100\n", r,
                        100 + r, r, r);
  }
  for (double size = 1024; size <= (1 << 28); size *= 8) {
    const double t = alpha + size * 1.75 / 150e3;
    text += fmt::format("  {:.0f} {:.0f} float sum -1 {:.3f} {:.3f} {:.3f} 0 {:.3f} 0 0 0\n", size,
                        size / 4, t, size / t / 1e3, size / t / 1e3 * 1.75, t);
  }
  const std::string table = write("ar.txt", text);
  const std::string topo = file("topo.json");
  const ProcessResult cal = bench({"calibrate", "--nccl-tests", table, "--out", topo});
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  EXPECT_NE(cal.out.find("dgx-h100-calibrated"), std::string::npos);
  std::ifstream in(topo);
  const nlohmann::json t = nlohmann::json::parse(in);
  EXPECT_NEAR(t["intra_node"]["busbw_gbps"]["all_reduce"].get<double>(), 150.0, 0.5);

  const ProcessResult p =
      bench({"project", "--model", tiny_model(), "--gpus", "2", "--optimizer", "muon", "--strategy",
             "canzona,sc", "--topology", topo, "--compute", "measured", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const nlohmann::json j = nlohmann::json::parse(p.out);
  EXPECT_EQ(j["topology"]["name"], "dgx-h100-calibrated");
  EXPECT_EQ(j["strategies"][0]["compute"], "measured");
  EXPECT_NE(j["compute_source"].get<std::string>().find("measured on the cpu backend"),
            std::string::npos);
  // Measuring takes seconds to minutes on a real model: stderr says what, why, and how far along.
  EXPECT_NE(p.err.find("project: measuring optimizer steps on the cpu backend (--compute "
                       "measured)"),
            std::string::npos)
      << p.err;
  EXPECT_NE(p.err.find("project: [1 measured, "), std::string::npos) << p.err;

  const ProcessResult bad = bench(
      {"calibrate", "--nccl-tests", write("junk.txt", "# nothing\n"), "--out", file("never.json")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_FALSE(fs::exists(file("never.json")));
}

}  // namespace
}  // namespace canzona::testing
