// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The ab report: Markdown for a nightly log or a pull request, JSON with every pair for whoever
// wants to check the verdicts.
#include "context_cells.hpp"
#include "number_format.hpp"
#include "report_text.hpp"

#include <canzona/harness/ab.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace canzona::harness {
namespace {

constexpr std::array<AbVerdict, 8> kAbVerdictOrder = {
    AbVerdict::kSlower,       AbVerdict::kMissing, AbVerdict::kUnconfirmed, AbVerdict::kNoisy,
    AbVerdict::kInconclusive, AbVerdict::kFaster,  AbVerdict::kNew,         AbVerdict::kSame};

// A log ratio as a signed percentage: "+3.1 %", "-0.4 %".
std::string percent(double log_ratio) {
  return fmt::format("{:+.1f} %", std::expm1(log_ratio) * 100);
}

// "+3.1 % [-0.4, +6.8]": the mean change with its interval; "-" without one.
std::string interval_cell(const AbStatistic& s) {
  if (s.pairs < 2) return "-";
  return fmt::format("{} [{:+.1f}, {:+.1f}]", percent(s.log_ratio.mean),
                     std::expm1(s.log_ratio.lower) * 100, std::expm1(s.log_ratio.upper) * 100);
}

std::string pairs_cell(const AbStatistic& s) {
  return s.voided > 0 ? fmt::format("{} ({} void)", s.pairs, s.voided) : std::to_string(s.pairs);
}

// The median of one side's values over the pairs that count.
std::string side_median(const std::vector<AbPair>& pairs, bool head) {
  std::vector<double> values;
  for (const AbPair& p : pairs) {
    if (p.voided.empty()) values.push_back(head ? p.head : p.base);
  }
  return values.empty() ? "-" : format_ms(median(values));
}

std::string verdict_summary(const AbResult& result) {
  const std::map<AbVerdict, int> counts = result.counts();
  std::string text;
  for (const AbVerdict v : kAbVerdictOrder) {
    const auto it = counts.find(v);
    if (it == counts.end()) continue;
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", it->second, ab_verdict_name(v));
  }
  return text.empty() ? "no rows" : text;
}

// Load averages over a side's samples ("1.2-3.4"): how busy the node was while it measured.
std::string load_range(const AbResult& result, const std::string& side) {
  double low = INFINITY;
  double high = -INFINITY;
  for (const nlohmann::json& sample : result.samples) {
    if (sample.value("side", "") != side || !sample.contains("load_avg_1m")) continue;
    const double load = sample["load_avg_1m"].get<double>();
    low = std::min(low, load);
    high = std::max(high, load);
  }
  return std::isfinite(low) ? fmt::format("{:.1f}-{:.1f}", low, high) : "-";
}

nlohmann::json statistic_json(const AbStatistic& s) {
  nlohmann::json j = {{"pairs", s.pairs}, {"voided", s.voided}};
  if (s.pairs >= 2) {
    j["mean_log_ratio"] = s.log_ratio.mean;
    j["interval_log_ratio"] = {s.log_ratio.lower, s.log_ratio.upper};
    j["change"] = std::expm1(s.log_ratio.mean);
    j["interval"] = {std::expm1(s.log_ratio.lower), std::expm1(s.log_ratio.upper)};
    j["p_slower"] = s.p_slower;
    j["p_faster"] = s.p_faster;
    j["p_slower_holm"] = s.p_slower_holm;
    j["p_faster_holm"] = s.p_faster_holm;
  }
  return j;
}

nlohmann::json pairs_json(const std::vector<AbPair>& pairs) {
  nlohmann::json j = nlohmann::json::array();
  for (const AbPair& p : pairs) {
    nlohmann::json pair = {{"base", p.base},
                           {"head", p.head},
                           {"base_time", p.base_time},
                           {"head_time", p.head_time},
                           {"order", p.base_first ? "AB" : "BA"}};
    if (!p.voided.empty()) pair["voided"] = p.voided;
    j.push_back(std::move(pair));
  }
  return j;
}

}  // namespace

std::string ab_markdown(const AbResult& result) {
  const auto& b = result.base_context;
  const auto& h = result.head_context;
  const AbSettings& s = result.settings;
  std::string md = "## canzona-bench ab\n\n";
  md += "| | base | head |\n|---|---|---|\n";
  md += fmt::format("| command | {} | {} |\n", markdown_code(result.base_command),
                    markdown_code(result.head_command));
  for (const auto& [label, key] : std::array<std::pair<const char*, const char*>, 6>{{
           {"git", "canzona_git_sha"},
           {"build", "canzona_build_type"},
           {"backend", "canzona_backend"},
           {"host", "host_name"},
           {"cores", "num_cpus"},
           {"slowdown injected", "canzona_inject_slowdown"},
       }}) {
    md += fmt::format("| {} | {} | {} |\n", label, markdown_text(context_value(b, key)),
                      markdown_text(context_value(h, key)));
  }
  md += fmt::format("| device | {} | {} |\n", markdown_text(device_line(b)),
                    markdown_text(device_line(h)));
  md += fmt::format("| load average (1 min) over its samples | {} | {} |\n\n",
                    markdown_text(load_range(result, "base")),
                    markdown_text(load_range(result, "head")));

  md += fmt::format(
      "One sample is one fresh process of a side's `run`; samples come in pairs in a balanced "
      "random order (seed {}), {} pairs first, up to {} for rows still INCONCLUSIVE. Per row: "
      "the mean change over pairs (of ln(head / base)) with its {:.0f} % t interval. SLOWER: "
      "slower than +{:.1f} % at a family-wise error of {} over the rows (Holm), confirmed by a "
      "fresh batch{}; SAME: the interval inside ±{:.1f} %. cpu rows are judged by CPU time "
      "(`cpu_ms`), others by their time column. {} samples, {:.0f} s.\n\n",
      result.seed, s.pairs, s.max_pairs, s.confidence * 100, s.threshold * 100, s.alpha,
      s.confirm ? "" : " (off: --no-confirm)", s.margin * 100, result.samples.size(),
      result.wall_seconds);

  md +=
      "| benchmark | metric | base | head | change [interval] | pairs | p slower (Holm) | verdict "
      "|\n";
  md += "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const AbRow& row : result.rows) {
    const AbStatistic& st = row.statistic;
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | **{}** |\n", markdown_code(row.key),
                      markdown_text(row.metric), side_median(row.pairs, false),
                      side_median(row.pairs, true), interval_cell(st), pairs_cell(st),
                      st.pairs >= 2 ? fmt::format("{:.3g}", st.p_slower_holm) : "-",
                      ab_verdict_name(row.verdict));
    if (row.confirmation_statistic) {
      const AbStatistic& c = *row.confirmation_statistic;
      md += fmt::format("| ↳ confirmation | | {} | {} | {} | {} | {} | |\n",
                        side_median(row.confirmation, false), side_median(row.confirmation, true),
                        interval_cell(c), pairs_cell(c),
                        c.pairs >= 2 ? fmt::format("{:.3g}", c.p_slower_holm) : "-");
    }
  }
  if (!result.changes.empty()) {
    md += "\n### Deterministic changes\n\n";
    md += "Plan hashes, deterministic counters and projected times differ between the sides:\n\n";
    md += "| benchmark | what | base | head | |\n|---|---|---:|---:|---|\n";
    for (const AbDeterministicChange& c : result.changes) {
      md += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_code(c.key),
                        markdown_text(c.counter), markdown_text(c.base), markdown_text(c.head),
                        c.allowed ? "allowed" : "**not allowed**");
    }
  }
  const int code = result.exit_code();
  md += fmt::format("\n**{}**: {} → {} (exit {})\n", "Verdict", verdict_summary(result),
                    code == 0 ? "pass" : "FAIL", code);
  return md;
}

nlohmann::json ab_json(const AbResult& result) {
  const AbSettings& s = result.settings;
  nlohmann::json j;
  j["canzona_ab"] = 1;
  j["settings"] = {
      {"threshold", s.threshold},   {"margin", s.margin},   {"alpha", s.alpha},
      {"confidence", s.confidence}, {"pairs", s.pairs},     {"more_pairs", s.more_pairs},
      {"max_pairs", s.max_pairs},   {"confirm", s.confirm}, {"seed", std::to_string(result.seed)}};
  j["base"] = {{"command", result.base_command}, {"context", result.base_context}};
  j["head"] = {{"command", result.head_command}, {"context", result.head_context}};
  j["wall_s"] = result.wall_seconds;
  j["samples"] = result.samples;
  nlohmann::json rows = nlohmann::json::array();
  for (const AbRow& row : result.rows) {
    nlohmann::json r = {{"name", row.key},
                        {"run_name", row.run_name},
                        {"metric", row.metric},
                        {"verdict", ab_verdict_name(row.verdict)},
                        {"statistic", statistic_json(row.statistic)},
                        {"pairs", pairs_json(row.pairs)}};
    if (row.confirmation_statistic) {
      r["confirmation"] = {{"statistic", statistic_json(*row.confirmation_statistic)},
                           {"pairs", pairs_json(row.confirmation)}};
    }
    rows.push_back(std::move(r));
  }
  j["rows"] = std::move(rows);
  nlohmann::json changes = nlohmann::json::array();
  for (const AbDeterministicChange& c : result.changes) {
    changes.push_back({{"name", c.key},
                       {"what", c.counter},
                       {"base", c.base},
                       {"head", c.head},
                       {"allowed", c.allowed}});
  }
  j["deterministic_changes"] = std::move(changes);
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [verdict, count] : result.counts()) counts[ab_verdict_name(verdict)] = count;
  j["counts"] = std::move(counts);
  j["exit_code"] = result.exit_code();
  return j;
}

}  // namespace canzona::harness
