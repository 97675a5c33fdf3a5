// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona-bench as a black box: good paths print what they promise; bad input gets a clear
// message on stderr, exit code 2 and nothing on stdout.
#include <canzona/testing/run_process.hpp>
#include "fixture_files.hpp"

#include <canzona/model/catalog.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace canzona::testing {
namespace {

TEST(CliTest, ModelsJsonListsTheWholeCatalogWithExactTotals) {
  const ProcessResult r = bench({"models", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const auto& models = doc.at("models");
  ASSERT_EQ(models.size(), model::catalog().size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    EXPECT_EQ(models[i].at("total_params").get<std::int64_t>(), model::catalog()[i].total_params());
    EXPECT_EQ(models[i].at("matrix_optimizer").at("params").get<std::int64_t>() +
                  models[i].at("adamw").at("params").get<std::int64_t>(),
              model::catalog()[i].total_params());
  }
  EXPECT_EQ(models[5].at("total_params").get<std::int64_t>(), 32'762'123'264);
}

TEST(CliTest, ModelsTablePrintsEveryModelWithEveryDigit) {
  const ProcessResult r = bench({"models"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Qwen3-32B"), std::string::npos);
  EXPECT_NE(r.out.find("32,762,123,264"), std::string::npos);
  EXPECT_NE(r.out.find("235,093,634,560"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// `devices` answers on any machine: the devices with the stack's versions, or why there are
// none; --require turns "none" into exit 1, --json says the same as the text.
TEST(CliTest, DevicesSaysWhatItSeesOrWhyItSeesNone) {
  const ProcessResult text = bench({"devices"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const ProcessResult json = bench({"devices", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const int count = doc.at("count").get<int>();
  ASSERT_EQ(doc.at("devices").size(), static_cast<std::size_t>(count));
  const ProcessResult required = bench({"devices", "--require"});
  if (count == 0) {
    const std::string reason = doc.at("reason").get<std::string>();
    EXPECT_FALSE(reason.empty()) << "no device and no reason";
    EXPECT_NE(text.out.find("cuda devices: none: " + reason), std::string::npos) << text.out;
    EXPECT_EQ(required.exit_code, 1);
    EXPECT_EQ(doc.at("device_kind").get<std::string>(), "cpu");
  } else {
    EXPECT_NE(text.out.find("cuda devices: " + std::to_string(count)), std::string::npos);
    EXPECT_EQ(required.exit_code, 0);
    EXPECT_FALSE(doc.at("versions").empty());
  }
}

TEST(CliTest, PlanJsonCoversEveryParameterAndIsConsistentWithDpTimesTp) {
  const ProcessResult r = bench({"plan", "--model", "Qwen3-8B", "--dp", "4", "--tp", "2",
                                 "--strategy", "zero1", "--gpus", "8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc.at("parallel").at("gpus").get<int>(), 8);
  EXPECT_EQ(doc.at("model").at("name").get<std::string>(), "qwen3-8b");
  EXPECT_TRUE(doc.at("zero1").contains("buffers"));
}

TEST(CliTest, PlanTextOfQwen3_32BOn256GpusNamesBucketsAndRanks) {
  const ProcessResult r =
      bench({"plan", "--model", "qwen3-32b", "--dp", "32", "--tp", "8", "--strategy", "zero1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("256 GPUs"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bucket"), std::string::npos) << r.out;
}

TEST(CliTest, PlanAcceptsAJsonModelSpecFile) {
  FixtureFiles dir;
  const std::string spec = dir.write_text("tiny.json", R"({
      "name": "tiny", "hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000,
      "tie_word_embeddings": true})");
  const ProcessResult r = bench({"plan", "--model", spec, "--dp", "2", "--tp", "2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).at("model").at("name").get<std::string>(), "tiny");
}

TEST(CliTest, HelpAndVersionExitZero) {
  EXPECT_EQ(bench({"--help"}).exit_code, 0);
  EXPECT_EQ(bench({"plan", "--help"}).exit_code, 0);
  const ProcessResult version = bench({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_FALSE(version.out.empty());
}

struct BadInput {
  std::string label;
  std::vector<std::string> args;
  std::string message;  // a fragment the error message must contain
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.label; }

class CliBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInputTest, ExitsTwoWithAClearMessageAndNoOutput) {
  const BadInput& c = GetParam();
  const ProcessResult r = bench(c.args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos)
      << "stderr should mention '" << c.message << "' but was:\n"
      << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing may be printed to stdout on bad input, got:\n" << r.out;
}

const std::vector<std::string> kPlan32 = {"plan", "--model", "qwen3-32b", "--strategy", "zero1"};

std::vector<std::string> with(std::vector<std::string> base, std::vector<std::string> extra) {
  base.insert(base.end(), extra.begin(), extra.end());
  return base;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInputTest,
    ::testing::Values(
        BadInput{"unknown_model", {"plan", "--model", "qwen3-99b", "--dp", "2"}, "qwen3-32b"},
        BadInput{"tp_not_dividing_heads", with(kPlan32, {"--dp", "2", "--tp", "3"}), "tp"},
        BadInput{"tp_above_node", with(kPlan32, {"--dp", "1", "--tp", "16"}), "tp"},
        BadInput{"dp_times_tp_not_world",
                 with(kPlan32, {"--dp", "16", "--tp", "8", "--gpus", "256"}), "256"},
        BadInput{"negative_dp", with(kPlan32, {"--dp", "-4"}), "--dp"},
        BadInput{"zero_tp", with(kPlan32, {"--dp", "4", "--tp", "0"}), "--tp"},
        BadInput{"non_numeric_dp", with(kPlan32, {"--dp", "many"}), "--dp"},
        BadInput{"negative_bucket_size", with(kPlan32, {"--dp", "4", "--bucket-size", "-1"}),
                 "--bucket-size"},
        BadInput{"unknown_flag", with(kPlan32, {"--dp", "4", "--frobnicate"}), "--frobnicate"},
        BadInput{"unknown_subcommand", {"frobnicate"}, "unknown command 'frobnicate'"},
        BadInput{"no_subcommand", {}, "subcommand"}, BadInput{"missing_dp", kPlan32, "--dp"},
        BadInput{"unknown_strategy",
                 {"plan", "--model", "qwen3-8b", "--dp", "2", "--strategy", "magic"},
                 "unknown strategy 'magic'"},
        BadInput{"missing_spec_file",
                 {"plan", "--model", "no/such/spec.json", "--dp", "2"},
                 "no/such/spec.json"},
        BadInput{
            "validate_missing_file", {"validate", "no-such-result.json"}, "no-such-result.json"}),
    [](const ::testing::TestParamInfo<BadInput>& case_info) { return case_info.param.label; });

TEST(CliBadSpecTest, MalformedAndInvalidJsonSpecsExitTwoNamingTheProblem) {
  FixtureFiles dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"name": "broken", "hidden_size": 256,)", "JSON"},
      {R"({"name": "neg", "hidden_size": -256, "intermediate_size": 768, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64,
           "vocab_size": 1000})",
       "hidden_size"},
      {R"({"name": "gqa", "hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 2,
           "num_attention_heads": 6, "num_key_value_heads": 4, "head_dim": 64,
           "vocab_size": 1000})",
       "num_key_value_heads"},
      {R"({"name": "missing", "hidden_size": 256})", "intermediate_size"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string spec = dir.write_text("spec" + std::to_string(i) + ".json", cases[i].first);
    const ProcessResult r = bench({"plan", "--model", spec, "--dp", "2"});
    EXPECT_EQ(r.exit_code, 2) << cases[i].first << "\n" << r.err;
    EXPECT_NE(r.err.find(cases[i].second), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(CliBadSpecTest, ValidateRejectsAResultFileThatIsNotBenchmarkJson) {
  FixtureFiles dir;
  const std::string garbage = dir.write_text("garbage.json", "{\"benchmarks\": 3}");
  const ProcessResult r = bench({"validate", garbage});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("context"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace canzona::testing
