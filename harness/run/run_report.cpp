// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_report.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

namespace canzona::harness {
namespace {

// "topology (compute)" of a projected series.
std::string projection_source(const Run& run, const Series& series) {
  const auto compute = series.label_fields.find("compute");
  return fmt::format("{}{}", projection_topology(run, series),
                     compute == series.label_fields.end() ? "" : " (" + compute->second + ")");
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

std::string format_run_summary(const Run& run) {
  std::size_t width = 9;
  for (const Series& s : run.series) width = std::max(width, s.name.key.size() + 12);
  std::string text =
      fmt::format("{:<{}} {:>11} {:>7} {:>9} {:>12} {:>9} {:>9}  {}\n", "benchmark", width,
                  "median_ms", "cv", "imbalance", "projector_ms", "error", "cpu_error", "kind");
  std::set<std::string> sources;
  for (const Series& s : run.series) {
    const std::string name = bench::registered_name(s.name);
    if (s.error) {
      text += fmt::format("{:<{}} {:>11}  {}\n", name, width, "FAILED", *s.error);
      continue;
    }
    const auto number = [](std::optional<double> value, const char* format) {
      return value ? fmt::format(fmt::runtime(format), *value) : std::string("-");
    };
    const std::optional<double> projector = s.counter("projector_ms");
    const auto percent = [&](const char* counter) {
      const std::optional<double> value = s.counter(counter);
      return number(value ? std::optional<double>(100 * *value) : std::nullopt, "{:+.1f}%");
    };
    if (s.projected()) sources.insert(projection_source(run, s));
    text += fmt::format("{:<{}} {:>11.3f} {:>7} {:>9} {:>12} {:>9} {:>9}  {}\n", name, width,
                        s.median_ms(),
                        s.projected() || s.repetitions() < 2 ? std::string("-")
                                                             : fmt::format("{:.1f}%", 100 * s.cv()),
                        number(s.counter("imbalance"), "{:.3f}"), number(projector, "{:.3f}"),
                        percent("projector_error"), percent("projector_cpu_error"),
                        s.projected() ? "projected †" : "measured");
  }
  // One column for both suites: what a row times is in its name.
  text +=
      "median_ms: OptimizerStep rows time the optimizer step, E2EIteration rows the whole "
      "iteration\nerror: projector_ms against the time; cpu_error: the projector's busiest rank "
      "on the thread CPU clock against cpu_ms (cpu backend)\n";
  for (const std::string& source : sources) {
    text += fmt::format("† projected on {}: a model of that cluster, not a measurement\n", source);
  }
  return text;
}

}  // namespace canzona::harness
