// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench plan` as a black box: the text and JSON views of a StepPlan, the precedence of
// the strategy flags, and bad input (exit code 2, a message naming the problem, empty stdout).
#include <canzona/testing/run_process.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

ProcessResult bench(const std::vector<std::string>& args) {
  return run_process(CANZONA_BENCH_EXE, args);
}

std::vector<std::string> with(std::vector<std::string> base,
                              const std::vector<std::string>& extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

const std::vector<std::string> kPlan8 = {"plan", "--model", "qwen3-8b", "--dp", "4", "--tp", "2"};
const std::vector<std::string> kPlan32 = {"plan", "--model", "qwen3-32b",  "--dp",   "32",
                                          "--tp", "8",       "--strategy", "canzona"};

nlohmann::json plan_json(const std::vector<std::string>& args) {
  const ProcessResult r = bench(with(args, {"--json"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::size_t count_lines_matching(const std::string& text, const std::regex& pattern) {
  std::istringstream lines(text);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line);) n += std::regex_search(line, pattern) ? 1 : 0;
  return n;
}

TEST(PlanCommandTest, TextShowsHeaderSummaryRanksBucketsAndOwners) {
  const ProcessResult r = bench(kPlan32);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"plan: Qwen3-32B on 256 GPUs (dp 32 x tp 8, 8 GPUs per node)",
                           "strategy   canzona = dp canzona + tp canzona",
                           "optimizer  muon",
                           "cost flops",
                           "alpha 1",
                           "tp schedule global",
                           "Summary",
                           "imbalance",
                           "lower bound",
                           "max / lower bound",
                           "flops imbalance",
                           "plan hash",
                           "state MiB",
                           "grad_sync",
                           "tp_gather",
                           "param_sync",
                           "MiB sent / received",
                           "Buckets of buffer 'matrix'",
                           "Buckets of buffer 'adamw'",
                           "Matrices: 256 stepped by muon",
                           "decoder.layers.63.mlp.linear_fc2.weight",
                           "--all-ranks prints all",
                           "ranks not shown"}) {
    EXPECT_TRUE(contains(r.out, part)) << "missing '" << part << "' in:\n" << r.out;
  }
  EXPECT_TRUE(contains(r.out, "█")) << "the per-rank view draws a bar per row";
  EXPECT_FALSE(contains(r.out, "ZeRO-1 layout of")) << "the layout view needs --layout";
}

// The element count is a fair cost for Muon's Newton–Schulz, a trap for Shampoo's and SOAP's
// eigendecompositions: the plan says so where it matters and only there.
TEST(PlanCommandTest, SaysWhenTheCostIsAPoorProxyForTheOptimizer) {
  const std::string warning = "cost numel is a poor proxy for this optimizer";
  for (const char* optimizer : {"shampoo", "soap"}) {
    const ProcessResult r = bench({"plan", "--model", "qwen3-1.7b", "--dp", "4", "--optimizer",
                                   optimizer, "--cost", "numel"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  warning    " + warning), std::string::npos) << optimizer << r.out;
  }
  for (const std::vector<std::string>& fine :
       {std::vector<std::string>{"--optimizer", "muon", "--cost", "numel"},
        std::vector<std::string>{"--optimizer", "shampoo", "--cost", "flops"}}) {
    std::vector<std::string> args = {"plan", "--model", "qwen3-1.7b", "--dp", "4"};
    args.insert(args.end(), fine.begin(), fine.end());
    const ProcessResult r = bench(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find(warning), std::string::npos) << r.out;
  }
}

TEST(PlanCommandTest, TextAndJsonAgreeOnTheHashAndTheSummary) {
  const ProcessResult text = bench(kPlan32);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const nlohmann::json json = plan_json(kPlan32);
  const std::string hash = json.at("plan_hash").get<std::string>();
  EXPECT_TRUE(std::regex_match(hash, std::regex("[0-9a-f]{16}"))) << hash;
  EXPECT_TRUE(contains(text.out, "plan hash          " + hash)) << text.out;
  for (const char* key : {"imbalance", "max_over_lower_bound", "flops_imbalance"}) {
    const std::string value = fmt::format("{:.4f}", json.at(key).get<double>());
    EXPECT_TRUE(contains(text.out, value)) << key << " = " << value << " missing in\n" << text.out;
  }
}

TEST(PlanCommandTest, JsonCarriesMetricsRanksCollectivesBucketsAndOwners) {
  const nlohmann::json doc = plan_json(kPlan32);
  // Fixed key order: the summary first, the bulky per-rank data after it.
  const ProcessResult raw = bench(with(kPlan32, {"--json"}));
  const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(raw.out);
  std::vector<std::string> keys;
  for (const auto& item : ordered.items()) keys.push_back(item.key());
  const std::vector<std::string> expected = {"model",
                                             "parallel",
                                             "strategy",
                                             "preset",
                                             "options",
                                             "imbalance",
                                             "lower_bound",
                                             "max_cost",
                                             "max_over_lower_bound",
                                             "imbalance_floor",
                                             "flops_imbalance",
                                             "plan_hash",
                                             "planning_ms",
                                             "ranks",
                                             "buffers",
                                             "matrices",
                                             "micro_groups",
                                             "replicated_matrices",
                                             "zero1"};
  EXPECT_EQ(keys, expected);

  EXPECT_GE(doc.at("imbalance").get<double>(), 1.0);
  // No placement beats the floor; the floor itself is at least 1.
  EXPECT_GE(doc.at("imbalance_floor").get<double>(), 1.0);
  EXPECT_LE(doc.at("imbalance_floor").get<double>(),
            doc.at("imbalance").get<double>() * (1 + 1e-12));
  EXPECT_GT(doc.at("lower_bound").get<double>(), 0.0);
  EXPECT_LE(doc.at("lower_bound").get<double>(), doc.at("max_cost").get<double>() * (1 + 1e-12));
  EXPECT_EQ(doc.at("options").at("dp_strategy"), "canzona");
  EXPECT_EQ(doc.at("options").at("tp_strategy"), "canzona");

  const auto& ranks = doc.at("ranks");
  ASSERT_EQ(ranks.size(), 256u);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto& rank = ranks[r];
    EXPECT_EQ(rank.at("rank").get<std::size_t>(), r);
    EXPECT_EQ(rank.at("dp").get<std::size_t>() * 8 + rank.at("tp").get<std::size_t>(), r);
    // The per-phase bytes are the sums over the rank's collectives.
    std::map<std::string, std::array<std::uint64_t, 2>> sums;
    for (const auto& c : rank.at("collectives")) {
      auto& sum = sums[c.at("phase").get<std::string>()];
      sum[0] += c.at("bytes_sent").get<std::uint64_t>();
      sum[1] += c.at("bytes_received").get<std::uint64_t>();
    }
    for (const auto& [phase, bytes] : rank.at("bytes").items()) {
      EXPECT_EQ(bytes.at("sent").get<std::uint64_t>(), sums[phase][0]) << "rank " << r << phase;
      EXPECT_EQ(bytes.at("received").get<std::uint64_t>(), sums[phase][1]) << "rank " << r << phase;
    }
    EXPECT_GT(rank.at("state_bytes").get<std::int64_t>(), 0);
  }

  ASSERT_FALSE(doc.at("buffers").empty());
  for (const auto& buffer : doc.at("buffers")) {
    for (const auto& bucket : buffer.at("buckets")) {
      EXPECT_EQ(bucket.at("cuts").size(), 33u) << "dp + 1 cut positions per bucket";
    }
  }
  ASSERT_EQ(doc.at("matrices").size(), 256u);
  for (const auto& m : doc.at("matrices")) {
    EXPECT_GE(m.at("dp_owner").get<int>(), 0) << m.at("name");
    EXPECT_LT(m.at("dp_owner").get<int>(), 32) << m.at("name");
    EXPECT_GE(m.at("tp_host").get<int>(), 0) << m.at("name");
    EXPECT_LT(m.at("tp_host").get<int>(), 8) << m.at("name");
  }
  EXPECT_TRUE(doc.at("zero1").contains("buffers"));
}

TEST(PlanCommandTest, OutputIsDeterministicApartFromThePlanningTime) {
  nlohmann::json first = plan_json(kPlan8);
  nlohmann::json second = plan_json(kPlan8);
  first.erase("planning_ms");
  second.erase("planning_ms");
  EXPECT_EQ(first.dump(), second.dump());
  EXPECT_EQ(bench(kPlan8).out.size(), bench(kPlan8).out.size());
}

TEST(PlanCommandTest, LargeJobsShowTheExtremesUnlessAllRanksIsGiven) {
  const std::regex work_row(R"(^\s+\d+(-\d+)?\s+\d+(-\d+)?\s+\d+(-\d+)?\s+[0-9.]+\s+[0-9.]+\s+)"
                            R"([0-9.]+\s+[0-9.]+)");
  const ProcessResult brief = bench(kPlan32);
  const ProcessResult all = bench(with(kPlan32, {"--all-ranks"}));
  ASSERT_EQ(brief.exit_code, 0) << brief.err;
  ASSERT_EQ(all.exit_code, 0) << all.err;
  // Work table rows only (the communication rows have no four plain numbers in a row).
  const std::size_t shown = count_lines_matching(brief.out, work_row);
  const std::size_t every = count_lines_matching(all.out, work_row);
  EXPECT_LE(shown, 16u) << brief.out;
  EXPECT_GT(every, shown) << all.out;
  EXPECT_FALSE(contains(all.out, "not shown")) << all.out;
}

TEST(PlanCommandTest, IdenticalRanksShareOneRow) {
  // DP-SC + TP-SC: every rank does the same work and moves the same bytes.
  const ProcessResult r = bench(with(kPlan8, {"--strategy", "sc"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "8 ranks in 1 row ")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\s+0-7\s+0-3\s+0-1\s)"))) << r.out;
}

TEST(PlanCommandTest, SideFlagsReplaceTheSideTheStrategySets) {
  struct Case {
    std::vector<std::string> flags;
    std::string name, dp, tp;
  };
  const std::vector<Case> cases = {
      {{}, "canzona", "canzona", "canzona"},
      {{"--strategy", "zero1"}, "zero1", "static", "sc"},
      {{"--strategy", "layerwise"}, "layerwise", "layerwise", "sc"},
      {{"--strategy", "layerwise", "--tp-strategy", "canzona"},
       "layerwise+canzona",
       "layerwise",
       "canzona"},
      {{"--dp-strategy", "static"}, "static+canzona", "static", "canzona"},
      {{"--dp-strategy", "sc", "--tp-strategy", "sc"}, "sc", "sc", "sc"},
      {{"--strategy", "sc", "--dp-strategy", "sc"}, "sc", "sc", "sc"},
  };
  for (const Case& c : cases) {
    const nlohmann::json doc = plan_json(with(kPlan8, c.flags));
    const std::string label = fmt::format("{}", fmt::join(c.flags, " "));
    EXPECT_EQ(doc.at("strategy"), c.name) << label;
    EXPECT_EQ(doc.at("options").at("dp_strategy"), c.dp) << label;
    EXPECT_EQ(doc.at("options").at("tp_strategy"), c.tp) << label;
  }
}

TEST(PlanCommandTest, TuningFlagsReachThePlan) {
  const nlohmann::json doc = plan_json(
      with(kPlan8, {"--alpha", "0.5", "--cost", "numel", "--tp-schedule", "slot", "--slot-mib",
                    "512", "--transport", "gather-scatter", "--bucket-size", "100000000"}));
  const auto& o = doc.at("options");
  EXPECT_EQ(o.at("alpha").get<double>(), 0.5);
  EXPECT_EQ(o.at("cost"), "numel");
  EXPECT_EQ(o.at("tp_schedule"), "slot");
  EXPECT_EQ(o.at("slot_mib").get<double>(), 512.0);
  EXPECT_EQ(o.at("transport"), "gather-scatter");
  EXPECT_EQ(o.at("bucket_size").get<std::int64_t>(), 100'000'000);
  EXPECT_NE(doc.at("plan_hash"), plan_json(kPlan8).at("plan_hash"));
}

TEST(PlanCommandTest, SplitTakesRepeatedFlagsOrACommaList) {
  const nlohmann::json listed = plan_json(with(kPlan8, {"--split", "qkv,qkv-per-head,fc1"}));
  const nlohmann::json repeated =
      plan_json(with(kPlan8, {"--split", "qkv", "--split", "qkv-per-head", "--split", "fc1"}));
  EXPECT_EQ(listed.at("plan_hash"), repeated.at("plan_hash"));
  EXPECT_NE(listed.at("plan_hash"), plan_json(kPlan8).at("plan_hash"));
  const auto& split = listed.at("options").at("split");
  EXPECT_TRUE(split.at("qkv").get<bool>() && split.at("qkv_per_head").get<bool>() &&
              split.at("fc1").get<bool>());
  // Qwen3-8B: 32 q heads + 8 k groups + 8 v groups per linear_qkv.
  for (const auto& m : listed.at("matrices")) {
    const std::string name = m.at("name").get<std::string>();
    if (contains(name, "linear_qkv")) {
      EXPECT_EQ(m.at("fragments").size(), 48u) << name;
    } else if (contains(name, "linear_fc1")) {
      EXPECT_EQ(m.at("fragments").size(), 2u) << name;
    }
  }
}

TEST(PlanCommandTest, OptimizerFlagsReachThePlan) {
  const nlohmann::json doc =
      plan_json(with(kPlan8, {"--optimizer", "shampoo", "--refresh-interval", "5"}));
  EXPECT_EQ(doc.at("options").at("optimizer").at("kind"), "shampoo");
  EXPECT_EQ(doc.at("options").at("optimizer").at("refresh_interval").get<int>(), 5);
  EXPECT_EQ(plan_json(kPlan8).at("options").at("optimizer").at("kind"), "muon");
}

TEST(PlanCommandTest, LayoutAndVerboseAppendTheZero1BufferView) {
  const ProcessResult layout = bench(with(kPlan8, {"--strategy", "zero1", "--layout"}));
  ASSERT_EQ(layout.exit_code, 0) << layout.err;
  EXPECT_TRUE(contains(layout.out, "ZeRO-1 layout of qwen3-8b")) << layout.out;
  EXPECT_TRUE(contains(layout.out, "matrices cut across DP ranks")) << layout.out;
  const ProcessResult verbose = bench(with(kPlan8, {"--verbose"}));
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_TRUE(contains(verbose.out, "ZeRO-1 layout of qwen3-8b")) << verbose.out;
  EXPECT_GT(verbose.out.size(), layout.out.size()) << "verbose lists every parameter";
}

TEST(PlanCommandTest, TheSuggestedSlotCapacityIsEnough) {
  const ProcessResult r = bench(with(kPlan8, {"--tp-schedule", "global", "--slot-mib", "1"}));
  ASSERT_EQ(r.exit_code, 2) << r.out;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(r.err, match, std::regex(R"(--slot-mib >= ([0-9.]+))"))) << r.err;
  const ProcessResult fixed =
      bench(with(kPlan8, {"--tp-schedule", "global", "--slot-mib", match[1].str()}));
  EXPECT_EQ(fixed.exit_code, 0) << "following the advice of\n" << r.err << "failed:\n" << fixed.err;
}

TEST(PlanCommandTest, PresetsSetTheirValuesFlagsOverrideThemAndThePlanSaysWhich) {
  const nlohmann::json reference = plan_json(with(kPlan8, {"--preset", "canzona-reference"}));
  EXPECT_EQ(reference["preset"]["name"], "canzona-reference");
  EXPECT_TRUE(reference["preset"]["overrides"].empty());
  EXPECT_NE(reference["preset"]["source"].get<std::string>().find("train.sh"), std::string::npos);
  const nlohmann::json& o = reference["options"];
  EXPECT_EQ(o["bucket_size"], 400000000);
  EXPECT_EQ(o["cost"], "numel");
  EXPECT_EQ(o["dp_balance"], "greedy");
  EXPECT_EQ(o["slot_mib"], 1600.0);
  EXPECT_EQ(o["tp_execution"], "serial");
  EXPECT_EQ(o["precision"]["params"], "bf16");
  EXPECT_EQ(o["precision"]["grad_reduce"], "fp32");
  EXPECT_EQ(o["optimizer"]["ns_coefficients"], "simple");
  EXPECT_EQ(o["optimizer"]["nesterov"], false);

  const nlohmann::json overridden =
      plan_json(with(kPlan8, {"--preset", "canzona-reference", "--cost", "flops", "--nesterov"}));
  EXPECT_EQ(overridden["options"]["cost"], "flops");
  EXPECT_EQ(overridden["options"]["optimizer"]["nesterov"], true);
  EXPECT_EQ(overridden["options"]["tp_execution"], "serial");
  EXPECT_EQ(overridden["preset"]["overrides"], nlohmann::json::array({"--cost flops"}));

  const nlohmann::json megatron = plan_json(kPlan8);
  EXPECT_EQ(megatron["preset"]["name"], "megatron");
  EXPECT_EQ(megatron["options"]["bucket_size"], 40000000);
  EXPECT_EQ(megatron["options"]["cost"], "flops");
  EXPECT_EQ(megatron["options"]["dp_balance"], "refined");
  EXPECT_EQ(megatron["options"]["tp_execution"], "pipelined");

  const ProcessResult text =
      bench(with(kPlan8, {"--preset", "canzona-reference", "--cost", "flops"}));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "preset     canzona-reference")) << text.out;
  EXPECT_TRUE(contains(text.out, "overridden by --cost flops")) << text.out;
  EXPECT_TRUE(contains(text.out, "tp execution serial")) << text.out;
  EXPECT_TRUE(contains(text.out, "precision  bf16 model parameters, fp32 gradient reduction"))
      << text.out;
}

// The numel cost is refined like the FLOP cost unless the reference's plain greedy is asked for
// (the canzona-reference preset's default): on Qwen3-8B at dp 16 the greedy's busiest rank is
// measurably above the refined plan's.
TEST(PlanCommandTest, DpBalanceRefinesTheNumelCostAndKeepsTheGreedyOnRequest) {
  const std::vector<std::string> numel = {"plan",   "--model", "qwen3-8b",      "--dp",     "16",
                                          "--cost", "numel",   "--bucket-size", "400000000"};
  const auto method = [](const nlohmann::json& j) {
    for (const auto& buffer : j["buffers"]) {
      if (buffer["name"] == "matrix") return buffer["partition"].get<std::string>();
    }
    return std::string();
  };
  const nlohmann::json refined = plan_json(with(numel, {}));
  const nlohmann::json greedy = plan_json(with(numel, {"--dp-balance", "greedy"}));
  EXPECT_EQ(refined["options"]["dp_balance"], "refined");
  EXPECT_EQ(greedy["options"]["dp_balance"], "greedy");
  EXPECT_EQ(method(refined), "alpha_balanced_refined");
  EXPECT_NE(method(greedy), "alpha_balanced_refined");
  EXPECT_LT(refined["imbalance"].get<double>(), greedy["imbalance"].get<double>() - 0.05);
  const nlohmann::json reference = plan_json(with(kPlan8, {"--preset", "canzona-reference"}));
  EXPECT_EQ(reference["options"]["dp_balance"], "greedy");
  const nlohmann::json overridden =
      plan_json(with(kPlan8, {"--preset", "canzona-reference", "--dp-balance", "refined"}));
  EXPECT_EQ(overridden["options"]["dp_balance"], "refined");
  EXPECT_EQ(overridden["preset"]["overrides"], nlohmann::json::array({"--dp-balance refined"}));
}

// The reference's fuse space counts TP-local elements: under canzona-reference the micro-groups
// are those of a full-matrix capacity tp times larger, and differ from the full-matrix reading.
TEST(PlanCommandTest, ReferenceSlotCountsTpLocalElements) {
  const std::vector<std::string> reference = {
      "plan", "--model", "qwen3-32b", "--dp", "8", "--tp", "4", "--preset", "canzona-reference"};
  const nlohmann::json local = plan_json(reference);
  EXPECT_EQ(local["options"]["slot_unit"], "tp-local");
  const nlohmann::json full_times_tp =
      plan_json(with(reference, {"--slot-unit", "full", "--slot-mib", "6400"}));
  const nlohmann::json full = plan_json(with(reference, {"--slot-unit", "full"}));
  EXPECT_EQ(local["micro_groups"], full_times_tp["micro_groups"]);
  EXPECT_NE(local["micro_groups"], full["micro_groups"]);
  const ProcessResult text = bench(reference);
  EXPECT_TRUE(contains(text.out, "slot 1600 MiB of TP-local elements")) << text.out;
}

TEST(PlanCommandTest, CollectivesCarryTheirDtypeAndTpGathersAreGradientOnly) {
  const nlohmann::json j = plan_json(kPlan8);
  std::map<std::string, std::string> dtype_of_phase;
  for (const auto& c : j["ranks"][0]["collectives"]) {
    const std::string phase = c["phase"];
    const std::string dtype = c["dtype"];
    if (dtype_of_phase.count(phase) != 0) {
      EXPECT_EQ(dtype_of_phase[phase], dtype) << phase;
    }
    dtype_of_phase[phase] = dtype;
  }
  EXPECT_EQ(dtype_of_phase["grad_sync"], "fp32");
  EXPECT_EQ(dtype_of_phase["tp_gather"], "fp32");
  EXPECT_EQ(dtype_of_phase["tp_scatter"], "bf16");  // Muon's bf16 Newton–Schulz direction
  EXPECT_EQ(dtype_of_phase["param_sync"], "bf16");
  // A TP all-to-all moves gradient shards only: the gather receives what the scatter sends
  // (one shard per matrix each way), at 4 bytes per element against the scatter's 2.
  const auto& bytes = j["ranks"][0]["bytes"];
  EXPECT_EQ(bytes["tp_gather"]["received"].get<std::uint64_t>(),
            2 * bytes["tp_scatter"]["sent"].get<std::uint64_t>());
}

struct BadPlan {
  std::string label;
  std::vector<std::string> flags;  // appended to kPlan8
  std::string message;             // a fragment the error message must contain
};

void PrintTo(const BadPlan& c, std::ostream* os) { *os << c.label; }

class PlanBadInputTest : public ::testing::TestWithParam<BadPlan> {};

TEST_P(PlanBadInputTest, ExitsTwoWithAClearMessageAndNoOutput) {
  const BadPlan& c = GetParam();
  for (const bool json : {false, true}) {
    std::vector<std::string> args = with(kPlan8, c.flags);
    if (json) args.push_back("--json");
    const ProcessResult r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(contains(r.err, c.message))
        << "stderr should mention '" << c.message << "' but was:\n"
        << r.err;
    EXPECT_TRUE(r.out.empty()) << "nothing may be printed to stdout on bad input, got:\n" << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanBadInputTest,
    ::testing::Values(
        BadPlan{"alpha_above_one",
                {"--alpha", "1.5"},
                "--alpha: 1.5 is out of range; expected a number in [0, 1]"},
        BadPlan{"alpha_negative",
                {"--alpha", "-0.1"},
                "--alpha: -0.1 is out of range; expected a number in [0, 1]"},
        BadPlan{"alpha_not_a_number", {"--alpha", "half"}, "--alpha"},
        BadPlan{"unknown_strategy", {"--strategy", "magic"}, "unknown strategy 'magic'"},
        BadPlan{"unknown_dp_strategy", {"--dp-strategy", "magic"}, "--dp-strategy: unknown"},
        BadPlan{"unknown_tp_strategy", {"--tp-strategy", "magic"}, "--tp-strategy: unknown"},
        BadPlan{"unknown_schedule", {"--tp-schedule", "magic"}, "--tp-schedule: unknown"},
        BadPlan{"unknown_transport", {"--transport", "magic"}, "--transport: unknown"},
        BadPlan{"unknown_cost", {"--cost", "magic"}, "--cost: unknown"},
        BadPlan{"unknown_dp_balance", {"--dp-balance", "magic"}, "--dp-balance: unknown"},
        BadPlan{"unknown_slot_unit", {"--slot-unit", "bytes"}, "--slot-unit: unknown"},
        BadPlan{"slot_unit_without_canzona_tp",
                {"--tp-strategy", "sc", "--slot-unit", "full"},
                "--slot-unit applies to the canzona TP strategy only"},
        BadPlan{"unknown_split", {"--split", "qkvv"}, "unknown --split 'qkvv'"},
        BadPlan{"unknown_optimizer", {"--optimizer", "lion"}, "lion"},
        BadPlan{"optimizer_flag_not_applying",
                {"--optimizer", "soap", "--ns-steps", "3"},
                "--ns-steps does not apply"},
        BadPlan{"per_head_without_qkv",
                {"--split", "qkv-per-head"},
                "--split qkv-per-head needs --split qkv"},
        BadPlan{"tp_not_dividing_kv_heads", {"--tp", "3", "--split", "qkv"}, "tp"},
        BadPlan{"slot_below_largest_matrix",
                {"--tp-schedule", "global", "--slot-mib", "1"},
                "is below the largest matrix 'decoder.layers.0.mlp.linear_fc1"},
        BadPlan{"negative_slot",
                {"--slot-mib", "-1"},
                "--slot-mib: -1 is out of range; expected a finite number >= 0"},
        BadPlan{"strategy_overridden_on_both_sides",
                {"--strategy", "sc", "--dp-strategy", "canzona", "--tp-strategy", "canzona"},
                "--strategy sc has no effect"},
        BadPlan{"alpha_without_canzona_dp",
                {"--strategy", "layerwise", "--alpha", "0.5"},
                "--alpha applies to the canzona DP strategy only"},
        BadPlan{"schedule_without_canzona_tp",
                {"--tp-strategy", "sc", "--tp-schedule", "slot"},
                "--tp-schedule applies to the canzona TP strategy only"},
        BadPlan{"slot_with_single_schedule",
                {"--tp-schedule", "single", "--slot-mib", "64"},
                "--slot-mib applies to --tp-schedule slot or global"},
        BadPlan{"transport_with_tp_sc",
                {"--strategy", "zero1", "--transport", "all-to-all"},
                "--transport applies to the canzona and asc TP strategies"},
        BadPlan{"unknown_preset", {"--preset", "nemo"}, "--plan-preset: unknown preset 'nemo'"},
        BadPlan{"unknown_tp_execution", {"--tp-execution", "eager"}, "--tp-execution: unknown"},
        BadPlan{"tp_execution_with_tp_sc",
                {"--strategy", "zero1", "--tp-execution", "serial"},
                "--tp-execution applies to TP sides with micro-groups"},
        BadPlan{"slot_with_tp_sc_under_a_preset",
                {"--preset", "canzona-reference", "--strategy", "layerwise", "--slot-mib", "8"},
                "--slot-mib applies to the canzona TP strategy only"},
        BadPlan{"unknown_param_dtype", {"--param-dtype", "fp16"}, "unknown --param-dtype 'fp16'"},
        BadPlan{"bf16_grads_with_fp32_params",
                {"--param-dtype", "fp32", "--grad-reduce-dtype", "bf16"},
                "gradients reduced in bf16 need bf16 model parameters"},
        BadPlan{"nesterov_both_ways", {"--nesterov", "--no-nesterov"}, "contradict"},
        BadPlan{"shampoo_preconditioning_before_its_first_root",
                {"--optimizer", "shampoo", "--refresh-at-multiples"},
                "start_preconditioning_step"},
        BadPlan{"dp_times_tp_not_world", {"--gpus", "16"}, "16"},
        BadPlan{"tp_above_node", {"--gpus-per-node", "1"}, "tp"},
        BadPlan{"adamw_has_no_plan", {"--optimizer", "adamw"}, "matrix optimizer"}),
    [](const ::testing::TestParamInfo<BadPlan>& case_info) { return case_info.param.label; });

}  // namespace
}  // namespace canzona::testing
