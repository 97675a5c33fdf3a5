// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_report.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/benchmark_name.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace canzona::harness {
namespace {

// The rows of one case.
struct CaseRows {
  std::string name;  ///< base name
  bool projected = false;
  const BenchmarkRow* first = nullptr;  ///< first iteration row (counters, label)
  const BenchmarkRow* median = nullptr;
  const BenchmarkRow* cv = nullptr;
  std::vector<double> steps_ms = {};  ///< iteration rows
};

std::vector<CaseRows> group_cases(const BenchmarkFile& file) {
  std::vector<CaseRows> cases;
  for (const BenchmarkRow& row : file.rows) {
    const std::optional<BenchmarkName> name = parse_benchmark_name(row.name);
    const std::string base = name ? name->base : row.name;
    auto it =
        std::find_if(cases.begin(), cases.end(), [&](const CaseRows& c) { return c.name == base; });
    if (it == cases.end()) {
      CaseRows fresh;
      fresh.name = base;
      fresh.projected = name && name->projected;
      cases.push_back(std::move(fresh));
      it = std::prev(cases.end());
    }
    const std::string aggregate = name ? name->aggregate : row.aggregate_name;
    if (aggregate == "median") it->median = &row;
    if (aggregate == "cv") it->cv = &row;
    if (aggregate.empty() && !row.error) {
      if (!it->first) it->first = &row;
      it->steps_ms.push_back(real_time_ms(row));
    }
  }
  return cases;
}

double counter(const BenchmarkRow* row, const char* name) {
  if (!row) return 0;
  const auto it = row->counters.find(name);
  return it == row->counters.end() ? 0 : it->second;
}

// "projected topology=dgx-h100 compute=cost_model ..." -> "dgx-h100 (cost_model)".
std::string projection_source(const std::string& label) {
  const auto value = [&](std::string_view key) {
    const std::size_t at = label.find(std::string(key) + "=");
    if (at == std::string::npos) return std::string("?");
    const std::size_t start = at + key.size() + 1;
    return label.substr(start, label.find(' ', start) - start);
  };
  return fmt::format("{} ({})", value("topology"), value("compute"));
}

}  // namespace

nlohmann::json merge_runs(const std::vector<nlohmann::json>& documents,
                          const std::map<std::string, std::string>& provenance) {
  if (documents.empty()) throw ConfigError("merge_runs: no suite output to merge");
  nlohmann::json merged = {{"context", nlohmann::json::object()},
                           {"benchmarks", nlohmann::json::array()}};
  for (const nlohmann::json& document : documents) {
    if (!document.contains("context") || !document.contains("benchmarks") ||
        !document["benchmarks"].is_array()) {
      throw ConfigError("suite output without 'context' and 'benchmarks'");
    }
    if (merged["context"].empty()) merged["context"] = document["context"];
    for (const nlohmann::json& row : document["benchmarks"]) merged["benchmarks"].push_back(row);
  }
  for (const auto& [key, value] : provenance) merged["context"][key] = value;
  return merged;
}

std::string format_run_summary(const BenchmarkFile& file) {
  const std::vector<CaseRows> cases = group_cases(file);
  std::size_t width = 9;
  for (const CaseRows& c : cases) width = std::max(width, c.name.size() + 2);
  std::string text = fmt::format("{:<{}} {:>11} {:>7} {:>9} {:>12}  {}\n", "benchmark", width,
                                 "step_ms", "cv", "imbalance", "projector_ms", "kind");
  std::set<std::string> sources;
  for (const CaseRows& c : cases) {
    if (!c.first) {
      text += fmt::format("{:<{}} {:>11}\n", c.name, width, "FAILED");
      continue;
    }
    std::vector<double> sorted = c.steps_ms;
    std::sort(sorted.begin(), sorted.end());
    const double step = c.median ? real_time_ms(*c.median) : sorted[sorted.size() / 2];
    const std::string cv = c.cv ? fmt::format("{:.1f}%", 100 * c.cv->real_time) : "-";
    const bool has_projector = c.first->counters.count("projector_ms") > 0;
    const std::string projector =
        has_projector ? fmt::format("{:.3f}", counter(c.first, "projector_ms")) : "-";
    if (c.projected) sources.insert(projection_source(c.first->label));
    text += fmt::format("{:<{}} {:>11.3f} {:>7} {:>9.3f} {:>12}  {}\n", c.name, width, step,
                        c.projected ? "-" : cv, counter(c.first, "imbalance"), projector,
                        c.projected ? "projected †" : "measured");
  }
  for (const std::string& source : sources) {
    text += fmt::format("† projected on {}: a model of that cluster, not a measurement\n", source);
  }
  return text;
}

}  // namespace canzona::harness
