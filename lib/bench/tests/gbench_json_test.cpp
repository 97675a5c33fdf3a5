// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The Google Benchmark JSON reader on 1.7.1-style and newer-style documents, good and bad.
#include <canzona/bench/gbench_json.hpp>
#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace canzona::bench {
namespace {

nlohmann::json valid_document() {
  return nlohmann::json::parse(R"({
    "context": {"date": "2026-11-22", "num_cpus": 2, "canzona_git_sha": "abc",
                "device_kind": "cpu", "library_build_type": "debug",
                "load_avg": [6.34961, 8.39697, 9.19922], "cpu_scaling_enabled": false,
                "caches": [{"level": 1, "size": 32768}]},
    "benchmarks": [
      {"name": "Planner/zero1/qwen3-8b/gpus:8/dp:8/tp:1", "run_type": "iteration",
       "iterations": 120, "real_time": 1.5e6, "cpu_time": 1.4e6, "time_unit": "ns",
       "buckets": 7, "matrices_cut": 3.0, "threads": 1, "future_field": {"nested": true}},
      {"name": "Planner/zero1/qwen3-8b/gpus:8/dp:8/tp:1_median", "run_type": "aggregate",
       "aggregate_name": "median", "iterations": 3, "real_time": 2.5, "cpu_time": 2.0,
       "time_unit": "ms"},
      {"name": "Broken/1", "error_occurred": true, "error_message": "needs 8 GPUs"},
      {"name": "Skipped/1", "skipped": true, "skip_message": "no NCCL"}
    ]})");
}

TEST(GbenchJsonTest, ReadsRowsCountersAndErrorsOfBothSchemaVersions) {
  const BenchmarkFile file = parse_gbench_json(valid_document(), "doc");
  ASSERT_EQ(file.rows.size(), 4u);
  EXPECT_EQ(file.context.at("canzona_git_sha"), "abc");
  // Numbers and lists of numbers become text (a report shows the load a run was measured
  // under); booleans and objects are left out.
  EXPECT_EQ(file.context.at("num_cpus"), "2");
  EXPECT_EQ(file.context.at("load_avg"), "6.35 8.4 9.2");
  EXPECT_EQ(file.context.count("cpu_scaling_enabled"), 0u);
  EXPECT_EQ(file.context.count("caches"), 0u);

  const BenchmarkRow& first = file.rows[0];
  EXPECT_EQ(first.iterations, 120);
  EXPECT_DOUBLE_EQ(real_time_ms(first), 1.5);
  EXPECT_EQ(first.counters.size(), 2u);
  EXPECT_DOUBLE_EQ(first.counters.at("buckets"), 7.0);
  EXPECT_DOUBLE_EQ(first.counters.at("matrices_cut"), 3.0);
  EXPECT_FALSE(first.error.has_value());

  EXPECT_EQ(file.rows[1].aggregate_name, "median");
  EXPECT_DOUBLE_EQ(real_time_ms(file.rows[1]), 2.5);
  EXPECT_EQ(file.rows[2].error.value_or(""), "needs 8 GPUs");
  EXPECT_EQ(file.rows[3].error.value_or(""), "no NCCL");
}

TEST(GbenchJsonTest, ConvertsEveryTimeUnitToMilliseconds) {
  BenchmarkRow row;
  row.real_time = 3.0;
  for (const auto& [unit, ms] : {std::pair{"ns", 3e-6}, {"us", 3e-3}, {"ms", 3.0}, {"s", 3e3}}) {
    row.time_unit = unit;
    EXPECT_DOUBLE_EQ(real_time_ms(row), ms) << unit;
  }
}

void expect_config_error(const nlohmann::json& document, const std::string& fragment) {
  try {
    parse_gbench_json(document, "doc");
    ADD_FAILURE() << "expected ConfigError mentioning '" << fragment << "'";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(GbenchJsonTest, RejectsDocumentsThatAreNotBenchmarkOutput) {
  expect_config_error(nlohmann::json::array(), "top level is array");
  expect_config_error(nlohmann::json{{"benchmarks", nlohmann::json::array()}}, "'context'");
  expect_config_error(nlohmann::json{{"context", nlohmann::json::object()}}, "'benchmarks'");

  nlohmann::json missing_time = valid_document();
  missing_time["benchmarks"][0].erase("real_time");
  expect_config_error(missing_time, "benchmarks[0]: missing field 'real_time'");

  nlohmann::json wrong_type = valid_document();
  wrong_type["benchmarks"][1]["iterations"] = "many";
  expect_config_error(wrong_type, "benchmarks[1]: field 'iterations' must be an integer up to");

  nlohmann::json bad_unit = valid_document();
  bad_unit["benchmarks"][0]["time_unit"] = "fortnights";
  expect_config_error(bad_unit, "unknown time_unit 'fortnights'");

  for (const nlohmann::json& count : {nlohmann::json(2.5), nlohmann::json(1e30),
                                      nlohmann::json(18446744073709551615ULL)}) {
    nlohmann::json not_a_count = valid_document();
    not_a_count["benchmarks"][0]["iterations"] = count;
    expect_config_error(not_a_count, "field 'iterations' must be an integer up to");
  }
  nlohmann::json null_time = valid_document();
  null_time["benchmarks"][0]["real_time"] = nullptr;
  expect_config_error(null_time, "field 'real_time' is not a finite value");

  nlohmann::json nameless = valid_document();
  nameless["benchmarks"][2].erase("name");
  expect_config_error(nameless, "benchmarks[2]: missing field 'name'");
}

// Every value the results commands multiply, square or divide is bounded when read, so no ratio,
// median or geometric mean of a run file can overflow into inf or NaN.
TEST(GbenchJsonTest, RejectsTimesAndCountersBeyondWhatABenchmarkMeasures) {
  for (const auto& [time, unit] :
       {std::pair{1e308, "s"}, {1e16, "ms"}, {1e10, "s"}, {1e-300, "ns"}, {1e-7, "ns"}}) {
    nlohmann::json document = valid_document();
    document["benchmarks"][0]["real_time"] = time;
    document["benchmarks"][0]["time_unit"] = unit;
    expect_config_error(document, "benchmarks[0]: 'real_time' is");
    document["benchmarks"][0]["real_time"] = 1.0;
    document["benchmarks"][0]["cpu_time"] = time;
    expect_config_error(document, "benchmarks[0]: 'cpu_time' is");
  }
  for (const double counter : {1e300, -1e31}) {
    nlohmann::json document = valid_document();
    document["benchmarks"][1]["buckets"] = counter;
    expect_config_error(document, "benchmarks[1]: counter 'buckets' is");
  }
  // The edges themselves are times a file may hold: 0, a femtosecond and 31 years.
  for (const auto& [time, unit] : {std::pair{0.0, "ns"}, {1e-6, "ns"}, {1e9, "s"}}) {
    nlohmann::json document = valid_document();
    document["benchmarks"][0]["real_time"] = time;
    document["benchmarks"][0]["time_unit"] = unit;
    EXPECT_NO_THROW(parse_gbench_json(document, "doc")) << time << " " << unit;
  }
}

// Google Benchmark 1.7.1 writes the cv of a counter whose mean is 0 as a bare NaN (not JSON).
TEST(GbenchJsonTest, ReadsFilesWithNonFiniteCountersAsAbsentCounters) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("canzona-gbench-nan-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ".json");
  std::ofstream(path) << R"({"context": {"note": "NaN and -Infinity stay in strings \" NaN"},
    "benchmarks": [{"name": "Planner/zero1/qwen3-8b/gpus:8/dp:8/tp:1_cv", "run_type": "aggregate",
      "aggregate_name": "cv", "iterations": 9, "real_time": 0.04, "cpu_time": 0.01,
      "time_unit": "ms", "padding_elems": NaN, "buckets": -NaN, "a": Infinity, "b": -Infinity,
      "params": 0.5}]})";
  const BenchmarkFile file = read_gbench_json(path);
  std::filesystem::remove(path);
  EXPECT_EQ(file.context.at("note"), "NaN and -Infinity stay in strings \" NaN");
  ASSERT_EQ(file.rows.size(), 1u);
  EXPECT_EQ(file.rows[0].counters.size(), 1u);
  EXPECT_DOUBLE_EQ(file.rows[0].counters.at("params"), 0.5);
}

}  // namespace
}  // namespace canzona::bench
