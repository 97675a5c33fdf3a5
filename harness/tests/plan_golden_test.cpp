// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Golden snapshots of plan quality: for Qwen3-8B and Qwen3-32B with Muon, at several (dp, tp)
// and for the strategies the paper compares, the metrics `canzona-bench plan` reports (imbalance,
// lower bound, max / lower bound, FLOP imbalance, per-rank cost summary, plan hash, owners per
// bucket). Any planner change shows up here, and in review as a diff of harness/tests/golden/.
//
// Numbers are stored rounded to 6 significant digits and compared exactly after the same
// rounding: no tolerance, the snapshot text must match byte for byte.
//
// To accept an intended change, regenerate the files and commit them with the change:
//   CANZONA_UPDATE_GOLDEN=1 ctest --test-dir <build> -R PlanGolden
// (or run <build>/bin/canzona_test_plan_command --gtest_filter='*PlanGolden*' with it set).
#include <canzona/baselines/strategy.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/plan/step_plan.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace canzona::testing {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kUpdateVariable = "CANZONA_UPDATE_GOLDEN";

const std::vector<std::pair<int, int>> kDpTp = {{8, 1}, {16, 2}, {32, 8}, {64, 4}};
const std::vector<std::string_view> kStrategies = {"canzona", "sc", "layerwise", "zero1"};

// 6 significant digits, parsed back so that the JSON holds the shortest text for that value.
double rounded(double value) { return std::stod(fmt::format("{:.6g}", value)); }

// Owners (non-empty DP slices) of each bucket of one buffer, in bucket order, run-length coded:
// "2 4*62 3" is a bucket with 2 owners, 62 buckets with 4, then one with 3.
std::string owners_per_bucket(const plan::BufferPlan& buffer) {
  std::vector<std::pair<int, int>> runs;  // (owners, buckets)
  for (const plan::BucketCuts& cuts : buffer.partition.buckets) {
    int owners = 0;
    for (std::size_t r = 0; r + 1 < cuts.pos.size(); ++r) {
      owners += cuts.pos[r + 1] > cuts.pos[r] ? 1 : 0;
    }
    if (!runs.empty() && runs.back().first == owners) {
      ++runs.back().second;
    } else {
      runs.emplace_back(owners, 1);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [owners, buckets] : runs) {
    parts.push_back(buckets == 1 ? fmt::format("{}", owners)
                                 : fmt::format("{}*{}", owners, buckets));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

Json snapshot_case(const model::ModelSpec& model, int dp, int tp, std::string_view strategy) {
  layout::ParallelConfig config;
  config.dp = dp;
  config.tp = tp;
  plan::StrategyOptions options;  // Muon with its defaults, flops cost, alpha 1, global schedule
  baselines::apply_strategy(strategy, options);
  const plan::StepPlan plan = baselines::make_step_plan(model, config, options);
  const plan::PlanMetrics metrics = plan::plan_metrics(plan);

  double min_cost = metrics.ranks.front().cost;
  double total = 0;
  std::size_t busiest = 0;
  for (std::size_t r = 0; r < metrics.ranks.size(); ++r) {
    min_cost = std::min(min_cost, metrics.ranks[r].cost);
    total += metrics.ranks[r].cost;
    if (metrics.ranks[r].cost > metrics.ranks[busiest].cost) busiest = r;
  }
  Json buckets = Json::object();
  for (const plan::BufferPlan& buffer : plan.buffers) {
    buckets[plan.layout.buffers[buffer.buffer].name] = owners_per_bucket(buffer);
  }
  return Json{{"strategy", plan.strategy},
              {"dp", dp},
              {"tp", tp},
              {"imbalance", rounded(metrics.imbalance)},
              {"lower_bound", rounded(metrics.lower_bound)},
              {"max_over_lower_bound", rounded(metrics.max_over_lower_bound)},
              {"flops_imbalance", rounded(metrics.flops_imbalance)},
              {"rank_cost",
               {{"min", rounded(min_cost)},
                {"mean", rounded(total / static_cast<double>(metrics.ranks.size()))},
                {"max", rounded(metrics.max_cost)},
                {"busiest_rank", busiest}}},
              {"plan_hash", fmt::format("{:016x}", plan::plan_hash(plan))},
              {"owners_per_bucket", std::move(buckets)}};
}

Json snapshot(std::string_view model_name) {
  const model::ModelSpec& model = model::find_model(model_name);
  Json cases = Json::array();
  for (const auto& [dp, tp] : kDpTp) {
    for (std::string_view strategy : kStrategies) {
      cases.push_back(snapshot_case(model, dp, tp, strategy));
    }
  }
  return Json{
      {"model", model.name},
      {"optimizer", "muon"},
      {"cost", "flops"},
      {"regenerate", fmt::format("{}=1 ctest --test-dir <build> -R PlanGolden", kUpdateVariable)},
      {"cases", std::move(cases)}};
}

std::filesystem::path golden_path(std::string_view model_name) {
  return std::filesystem::path(CANZONA_GOLDEN_DIR) / fmt::format("plan_{}_muon.json", model_name);
}

bool update_requested() {
  const char* value = std::getenv(std::string(kUpdateVariable).c_str());
  return value != nullptr && std::string_view(value) == "1";
}

// What changed, case by case and field by field, so the failure reads like a review comment.
std::string describe_changes(const Json& stored, const Json& fresh) {
  if (!stored.contains("cases") || stored.at("cases").size() != fresh.at("cases").size()) {
    return "  the set of cases changed\n";
  }
  std::string out;
  for (std::size_t i = 0; i < fresh.at("cases").size(); ++i) {
    const Json& before = stored.at("cases")[i];
    const Json& after = fresh.at("cases")[i];
    for (const auto& item : after.items()) {
      const Json old_value = before.contains(item.key()) ? before.at(item.key()) : Json();
      if (old_value == item.value()) continue;
      out +=
          fmt::format("  {} dp {} tp {}: {}: {} -> {}\n", after.at("strategy").get<std::string>(),
                      after.at("dp").get<int>(), after.at("tp").get<int>(), item.key(),
                      old_value.dump(), item.value().dump());
    }
  }
  return out.empty() ? "  only the formatting of the file differs\n" : out;
}

class PlanGoldenTest : public ::testing::TestWithParam<std::string_view> {};

TEST_P(PlanGoldenTest, PlanMetricsMatchTheStoredSnapshot) {
  const std::string_view model_name = GetParam();
  const std::string fresh_text = snapshot(model_name).dump(2) + "\n";
  const std::filesystem::path path = golden_path(model_name);

  if (update_requested()) {
    std::ofstream(path, std::ios::binary) << fresh_text;
    std::cout << "[ UPDATED  ] " << path.string() << "\n";
    return;
  }
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file.good()) << "no golden snapshot at " << path.string() << "; create it with "
                           << kUpdateVariable << "=1 and commit it";
  std::stringstream stored_text;
  stored_text << file.rdbuf();
  if (stored_text.str() == fresh_text) return;

  const Json stored = Json::parse(stored_text.str(), nullptr, /*allow_exceptions=*/false);
  FAIL() << "the plans of " << model_name << " differ from the golden snapshot " << path.string()
         << ":\n"
         << describe_changes(stored, Json::parse(fresh_text))
         << "If the change is intended, regenerate the snapshot and commit it with the change:\n  "
         << kUpdateVariable << "=1 ctest --test-dir <build> -R PlanGolden";
}

INSTANTIATE_TEST_SUITE_P(Qwen3, PlanGoldenTest,
                         ::testing::Values(std::string_view("qwen3-8b"),
                                           std::string_view("qwen3-32b")),
                         [](const ::testing::TestParamInfo<std::string_view>& case_info) {
                           std::string name(case_info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace canzona::testing
