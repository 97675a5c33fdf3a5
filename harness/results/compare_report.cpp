// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The compare report: markdown for a pull request or a nightly log, JSON for dashboards.
#include "context_cells.hpp"
#include "number_format.hpp"
#include "report_text.hpp"

#include <canzona/harness/compare.hpp>

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace canzona::harness {
namespace {

constexpr std::array<Verdict, 6> kVerdictOrder = {Verdict::kSlower, Verdict::kMissing,
                                                  Verdict::kNoisy,  Verdict::kFaster,
                                                  Verdict::kNew,    Verdict::kSame};

// Differences between the machines or their load that move every row: said before any verdict.
std::vector<std::string> measurement_warnings(const std::map<std::string, std::string>& b,
                                              const std::map<std::string, std::string>& c) {
  std::vector<std::string> warnings;
  for (const auto& [key, what] : std::array<std::pair<const char*, const char*>, 3>{{
           {"num_cpus", "cores"},
           {"mhz_per_cpu", "CPU clocks (MHz)"},
           {"gpu_clocks", "GPU clocks (MHz)"},
       }}) {
    const std::string x = context_value(b, key);
    const std::string y = context_value(c, key);
    if (x != "-" && y != "-" && x != y) {
      warnings.push_back(fmt::format("{} differ: {} in the base, {} in the head", what, x, y));
    }
  }
  // The 1-minute load average when the run started: a busy machine slows every row.
  const auto load = [](const std::map<std::string, std::string>& context) {
    return std::atof(context_value(context, "load_avg").c_str());
  };
  const auto cores = [](const std::map<std::string, std::string>& context) {
    return std::atof(context_value(context, "num_cpus").c_str());
  };
  if (context_value(b, "load_avg") != "-" && context_value(c, "load_avg") != "-") {
    const double lb = load(b);
    const double lc = load(c);
    if (std::abs(lb - lc) > 1.0 || (cores(b) > 0 && lb >= cores(b)) ||
        (cores(c) > 0 && lc >= cores(c))) {
      warnings.push_back(fmt::format(
          "the machines were loaded differently (1-minute load average {:.1f} in the base, "
          "{:.1f} in the head): time rows may have moved with the load",
          lb, lc));
    }
  }
  return warnings;
}

std::string timing_cell(const std::optional<double>& ms, std::int64_t repetitions, double cv) {
  if (!ms) return "-";
  if (repetitions >= 2)
    return fmt::format("{} ±{} (n={})", format_ms(*ms), format_percent(cv), repetitions);
  return fmt::format("{} (n={})", format_ms(*ms), repetitions);
}

std::string test_cell(const RowComparison& row) {
  if (row.method == "u-test") return fmt::format("U p={:.4f}", *row.p_value);
  if (row.method == "noise") return fmt::format("±{}", format_percent(row.threshold));
  return "-";
}

std::string verdict_summary(const Comparison& comparison) {
  const std::map<Verdict, int> counts = comparison.counts();
  std::string text;
  for (const Verdict v : kVerdictOrder) {
    const auto it = counts.find(v);
    if (it == counts.end()) continue;
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", it->second, verdict_name(v));
  }
  return text;
}

}  // namespace

std::string comparison_markdown(const Comparison& comparison, bool changes_only) {
  const auto& b = comparison.base_context;
  const auto& c = comparison.head_context;
  std::string md = "## canzona-bench compare\n\n";
  md += "| | base | head |\n|---|---|---|\n";
  md += fmt::format("| file | {} | {} |\n", markdown_code(comparison.base_source),
                    markdown_code(comparison.head_source));
  for (const auto& [label, key] : std::array<std::pair<const char*, const char*>, 5>{{
           {"git", "canzona_git_sha"},
           {"build", "canzona_build_type"},
           {"backend", "canzona_backend"},
           {"date", "date"},
           {"host", "host_name"},
       }}) {
    md += fmt::format("| {} | {} | {} |\n", label, markdown_text(context_value(b, key)),
                      markdown_text(context_value(c, key)));
  }
  md += fmt::format("| device | {} | {} |\n", markdown_text(device_line(b)),
                    markdown_text(device_line(c)));
  for (const auto& [label, key] : std::array<std::pair<const char*, const char*>, 2>{{
           {"cores", "num_cpus"},
           {"load average (1, 5, 15 min)", "load_avg"},
       }}) {
    md += fmt::format("| {} | {} | {} |\n", label, markdown_text(context_value(b, key)),
                      markdown_text(context_value(c, key)));
  }
  md += "\n";
  for (const std::string& warning : measurement_warnings(b, c)) {
    md += fmt::format("> **warning**: {}\n", markdown_text(warning));
  }

  const int exit_code = comparison.exit_code();
  md += fmt::format(
      "\n**{}** — {} (geomean head / base over the {} rows timed on both sides "
      "{:.3f}). A comparison with a stored run shows trends; it is not the regression gate, "
      "which measures both builds side by side (`canzona-bench ab`).\n\n",
      exit_code == 0 ? "PASS" : "REGRESSION", verdict_summary(comparison), comparison.timed_rows(),
      comparison.geomean_ratio());
  for (const std::string& allowed : comparison.allowed_differences) {
    md += fmt::format("> allowed: {}\n", markdown_text(allowed));
  }
  if (!comparison.allowed_differences.empty()) md += "\n";

  std::string table;
  int hidden = 0;
  for (const RowComparison& row : comparison.rows) {
    if (changes_only && row.verdict == Verdict::kSame && row.behaviour_changes.empty()) {
      ++hidden;
      continue;
    }
    const bool timed = row.base_ms && row.head_ms && !row.method.empty();
    std::string verdict = std::string(verdict_name(row.verdict));
    if (!row.note.empty()) verdict += " — " + markdown_text(row.note);
    table += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_code(row.name),
                         timing_cell(row.base_ms, row.base_repetitions, row.base_cv),
                         timing_cell(row.head_ms, row.head_repetitions, row.head_cv),
                         timed ? format_change(row.change) : "-", test_cell(row), verdict);
  }
  if (!table.empty()) {
    md +=
        "| benchmark | base ms | head ms | change | test | verdict |\n"
        "|---|---:|---:|---:|---|---|\n" +
        table;
  }
  if (hidden > 0)
    md += fmt::format("{}{} SAME rows not shown (--changes-only).\n", table.empty() ? "" : "\n",
                      hidden);

  if (comparison.behaviour_changes() > 0) {
    md +=
        "\n### Behaviour changes\n\nDeterministic counters (plan bytes, state bytes, plan "
        "imbalance, layout): a change here is a change of what the benchmark does, not "
        "noise.\n\n| benchmark | counter | base | head |\n|---|---|---:|---:|\n";
    for (const RowComparison& row : comparison.rows) {
      for (const CounterChange& change : row.behaviour_changes) {
        md += fmt::format("| {} | {} | {} | {} |\n", markdown_code(row.name),
                          markdown_code(change.counter), change.base, change.head);
      }
    }
  }
  const CompareOptions& o = comparison.options;
  md += fmt::format(
      "\nMedians of the repetitions, ±: relative standard deviation. Threshold {}; a U test "
      "(two-sided Mann–Whitney, α = {}) where both sides have ≥ {} repetitions, otherwise the "
      "threshold widened to the smaller relative spread. Exit 1 on SLOWER or MISSING.\n",
      format_percent(o.threshold), o.alpha, o.utest_repetitions);
  return md;
}

nlohmann::json comparison_json(const Comparison& comparison) {
  auto side = [](const std::string& source, const std::map<std::string, std::string>& context) {
    nlohmann::json j = {{"file", source}};
    for (const char* key :
         {"canzona_git_sha", "canzona_build_type", "canzona_backend", "device_kind", "gpu_name",
          "gpu_count", "gpu_clocks", "date", "host_name", "num_cpus", "mhz_per_cpu", "load_avg"}) {
      const auto it = context.find(key);
      if (it != context.end()) j[key] = it->second;
    }
    return j;
  };
  nlohmann::json counts = nlohmann::json::object();
  for (const Verdict v : kVerdictOrder) counts[std::string(verdict_name(v))] = 0;
  for (const auto& [verdict, n] : comparison.counts()) {
    counts[std::string(verdict_name(verdict))] = n;
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const RowComparison& row : comparison.rows) {
    nlohmann::json r = {{"name", row.name},
                        {"verdict", verdict_name(row.verdict)},
                        {"base_projected", row.base_projected},
                        {"head_projected", row.head_projected},
                        {"base_repetitions", row.base_repetitions},
                        {"head_repetitions", row.head_repetitions}};
    if (row.base_ms) {
      r["base_ms"] = *row.base_ms;
      r["base_cv"] = row.base_cv;
    }
    if (row.head_ms) {
      r["head_ms"] = *row.head_ms;
      r["head_cv"] = row.head_cv;
    }
    if (!row.method.empty()) {
      r["change"] = row.change;
      r["method"] = row.method;
      r["threshold"] = row.threshold;
    }
    if (row.p_value) r["p_value"] = *row.p_value;
    if (!row.note.empty()) r["note"] = row.note;
    nlohmann::json changes = nlohmann::json::array();
    for (const CounterChange& change : row.behaviour_changes) {
      changes.push_back(
          {{"counter", change.counter}, {"base", change.base}, {"head", change.head}});
    }
    r["behaviour_changes"] = std::move(changes);
    rows.push_back(std::move(r));
  }
  const CompareOptions& o = comparison.options;
  return {{"base", side(comparison.base_source, comparison.base_context)},
          {"head", side(comparison.head_source, comparison.head_context)},
          {"options",
           {{"threshold", o.threshold},
            {"alpha", o.alpha},
            {"utest_repetitions", o.utest_repetitions}}},
          {"allowed_differences", comparison.allowed_differences},
          {"summary",
           {{"verdicts", counts},
            {"behaviour_changes", comparison.behaviour_changes()},
            {"geomean_ratio", comparison.geomean_ratio()},
            {"timed_rows", comparison.timed_rows()},
            {"exit_code", comparison.exit_code()}}},
          {"rows", std::move(rows)}};
}

}  // namespace canzona::harness
