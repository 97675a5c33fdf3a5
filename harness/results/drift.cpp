// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/drift.hpp"

#include "number_format.hpp"
#include "report_text.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/ab.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

namespace canzona::harness {
namespace {

// The fewest nights a trend is fitted to: two points make a line but no interval.
constexpr int kMinNights = 3;

constexpr std::array<DriftVerdict, 4> kDriftVerdictOrder = {
    DriftVerdict::kDrift, DriftVerdict::kImproved, DriftVerdict::kStable, DriftVerdict::kTooFew};

std::size_t verdict_rank(DriftVerdict verdict) {
  return static_cast<std::size_t>(
      std::find(kDriftVerdictOrder.begin(), kDriftVerdictOrder.end(), verdict) -
      kDriftVerdictOrder.begin());
}

std::string file_name(const Run& run) {
  return std::filesystem::path(run.source).filename().string();
}

// One night's value of a row, in the metric that night's run judges it by.
struct NightValue {
  int night = 0;
  double value = 0;
  std::string metric;
};

// A row's points: the night indices and ln(value).
struct LogPoints {
  std::vector<double> x;
  std::vector<double> y;
};

LogPoints log_points(const DriftRow& row) {
  LogPoints p;
  p.x.assign(row.nights.begin(), row.nights.end());
  for (const double v : row.values) p.y.push_back(std::log(v));
  return p;
}

// The threshold is a change over the row's nights; per night it bounds the slope of ln(value):
// the slower and the faster bound.
std::pair<double, double> slope_bounds(const DriftRow& row, const DriftSettings& s) {
  const auto steps = static_cast<double>(row.nights_spanned() - 1);
  return {std::log1p(s.threshold) / steps, std::log1p(-s.threshold) / steps};
}

// The p-values of a judged row's two one-sided tests. The interval waits for Holm's levels.
void test_row(DriftRow& row, const DriftSettings& s) {
  const LogPoints p = log_points(row);
  const auto [slower, faster] = slope_bounds(row, s);
  row.p_slower = theil_sen_p_above(p.x, p.y, slower);
  row.p_faster = theil_sen_p_below(p.x, p.y, faster);
}

// The interval at the row's Holm levels, and the verdict it gives.
void bound_row(DriftRow& row, const DriftSettings& s) {
  const LogPoints p = log_points(row);
  row.slope = theil_sen(p.x, p.y, row.lower_level, row.upper_level);
  const auto [slower, faster] = slope_bounds(row, s);
  if (row.slope.lower > slower) {
    row.verdict = DriftVerdict::kDrift;
  } else if (row.slope.upper < faster) {
    row.verdict = DriftVerdict::kImproved;
  } else {
    row.verdict = DriftVerdict::kStable;
  }
}

// "+4.2", "-∞": one end of an interval as a percentage.
std::string end_cell(const DriftRow& row, double slope) {
  if (std::isinf(slope)) return slope > 0 ? "+∞" : "-∞";
  return fmt::format("{:+.1f}", row.change(slope) * 100);
}

// "+4.2 % over 12 nights [+1.1, +7.6]"; "-" for a row not judged.
std::string change_cell(const DriftRow& row) {
  if (row.verdict == DriftVerdict::kTooFew) return "-";
  return fmt::format("{:+.1f} % over {} nights [{}, {}]", row.change(row.slope.estimate) * 100,
                     row.nights_spanned(), end_cell(row, row.slope.lower),
                     end_cell(row, row.slope.upper));
}

std::string verdict_summary(const DriftResult& result) {
  const std::map<DriftVerdict, int> counts = result.counts();
  std::string text;
  for (const DriftVerdict v : kDriftVerdictOrder) {
    const auto it = counts.find(v);
    if (it == counts.end()) continue;
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", it->second, drift_verdict_name(v));
  }
  return text.empty() ? "no rows" : text;
}

// A slope, or the change it makes, as JSON: null for an unbounded end (JSON has no infinity).
nlohmann::json slope_or_null(double slope) {
  return std::isfinite(slope) ? nlohmann::json(slope) : nlohmann::json();
}

nlohmann::json change_or_null(const DriftRow& row, double slope) {
  return std::isfinite(slope) ? nlohmann::json(row.change(slope)) : nlohmann::json();
}

}  // namespace

void check_drift_settings(const DriftSettings& s) {
  if (s.last < kMinNights) {
    throw ConfigError(
        fmt::format("--last {}: a trend needs at least {} nights", s.last, kMinNights));
  }
  if (s.min_runs < kMinNights || s.min_runs > s.last) {
    throw ConfigError(fmt::format("--min-runs {}: give at least {} and at most --last ({})",
                                  s.min_runs, kMinNights, s.last));
  }
  if (!(s.threshold >= 0 && s.threshold <= 1)) {
    throw ConfigError(
        fmt::format("--threshold {} %: give a percentage from 0 to 100", s.threshold * 100));
  }
  if (!(s.alpha > 0 && s.alpha < 0.5)) {
    throw ConfigError(
        fmt::format("--alpha {}: give a family-wise error above 0 and below 0.5", s.alpha));
  }
}

std::string_view drift_verdict_name(DriftVerdict verdict) {
  switch (verdict) {
    case DriftVerdict::kDrift:
      return "DRIFT";
    case DriftVerdict::kImproved:
      return "IMPROVED";
    case DriftVerdict::kStable:
      return "STABLE";
    case DriftVerdict::kTooFew:
      return "TOO FEW";
  }
  return "?";
}

int DriftRow::nights_spanned() const {
  return nights.empty() ? 0 : nights.back() - nights.front() + 1;
}

double DriftRow::change(double slope_per_night) const {
  return std::expm1(slope_per_night * static_cast<double>(nights_spanned() - 1));
}

std::map<DriftVerdict, int> DriftResult::counts() const {
  std::map<DriftVerdict, int> counts;
  for (const DriftRow& row : rows) ++counts[row.verdict];
  return counts;
}

int DriftResult::exit_code() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const DriftRow& r) { return r.verdict == DriftVerdict::kDrift; })
             ? 1
             : 0;
}

DriftResult compute_drift(const std::vector<Run>& history, const std::string& folder,
                          const DriftSettings& settings) {
  check_drift_settings(settings);
  const std::string how_to_grow =
      "keep each night's run there (ci/nightly-gpu.sh does: one <date>-<commit>.json a night) "
      "and run drift again when it holds more";
  if (history.size() < static_cast<std::size_t>(kMinNights)) {
    throw ConfigError(
        fmt::format("--history '{}' holds {} run file(s); a drift needs at least {} "
                    "nights: {}",
                    folder, history.size(), kMinNights, how_to_grow));
  }
  DriftResult result;
  result.settings = settings;
  result.folder = folder;
  result.runs_in_folder = static_cast<int>(history.size());
  // One machine's nights: the newest run says which.
  result.device_kind = history.back().context_or("device_kind", "?");
  result.backend = history.back().context_or("canzona_backend", "-");
  std::vector<const Run*> same_kind;
  for (const Run& run : history) {
    if (run.context_or("device_kind", "?") == result.device_kind &&
        run.context_or("canzona_backend", "-") == result.backend) {
      same_kind.push_back(&run);
    } else {
      result.left_out.push_back(file_name(run));
    }
  }
  if (same_kind.size() < static_cast<std::size_t>(kMinNights)) {
    throw ConfigError(fmt::format(
        "--history '{}' holds {} run(s) of device kind '{}' and backend '{}' (the newest run's; "
        "{} of others left out: {}); a drift needs at least {} nights of one machine: {}",
        folder, same_kind.size(), result.device_kind, result.backend, result.left_out.size(),
        fmt::join(result.left_out, ", "), kMinNights, how_to_grow));
  }
  const std::size_t first =
      same_kind.size() - std::min(same_kind.size(), static_cast<std::size_t>(settings.last));
  const std::vector<const Run*> window(same_kind.begin() + static_cast<std::ptrdiff_t>(first),
                                       same_kind.end());
  for (const Run* run : window) {
    result.window.push_back(
        {file_name(*run), run->context_or("date", ""), run->context_or("canzona_git_sha", "?")});
  }

  // Every measured row's value on each night it has one, in the order rows first appear.
  const std::optional<bench::NamePattern> filter = name_filter(settings.filter);
  std::vector<std::string> names;
  std::map<std::string, std::vector<NightValue>> values;
  for (std::size_t night = 0; night < window.size(); ++night) {
    const Run& run = *window[night];
    for (const Series& s : run.series) {
      // Projected rows are functions of their inputs: ab and compare track them exactly.
      if (s.error || s.projected()) continue;
      const std::string name = bench::registered_name(s.name);
      if (filter && !filter->matches(name)) continue;
      const std::string metric = ab_metric(run, s);
      const double value = ab_value(s, metric);
      if (!(value > 0) || !std::isfinite(value)) continue;  // no logarithm
      auto [it, inserted] = values.try_emplace(name);
      if (inserted) names.push_back(name);
      it->second.push_back({static_cast<int>(night), value, metric});
    }
  }
  if (names.empty()) {
    throw ConfigError(
        settings.filter.empty()
            ? fmt::format(
                  "the last {} runs of --history '{}' hold no measured benchmark (projected "
                  "rows are not judged)",
                  window.size(), folder)
            : fmt::format("--filter '{}' matches no measured benchmark of the last {} runs of "
                          "--history '{}'",
                          settings.filter, window.size(), folder));
  }

  std::vector<DriftRow*> judged;
  result.rows.reserve(names.size());
  for (const std::string& name : names) {
    const std::vector<NightValue>& nights = values.at(name);
    DriftRow row;
    row.name = name;
    // The newest night's metric; a night that judged the row otherwise (no cpu_ms) is not one
    // of its points.
    row.metric = nights.back().metric;
    for (const NightValue& v : nights) {
      if (v.metric != row.metric) continue;
      row.nights.push_back(v.night);
      row.values.push_back(v.value);
    }
    result.rows.push_back(std::move(row));
  }
  for (DriftRow& row : result.rows) {
    if (row.nights.size() < static_cast<std::size_t>(settings.min_runs)) continue;  // TOO FEW
    test_row(row, settings);
    judged.push_back(&row);
  }

  // Holm over the judged rows, each direction a family of its own (as ab).
  std::vector<double> slower;
  std::vector<double> faster;
  for (const DriftRow* row : judged) {
    slower.push_back(row->p_slower);
    faster.push_back(row->p_faster);
  }
  const std::vector<double> slower_holm = holm_adjusted(slower);
  const std::vector<double> faster_holm = holm_adjusted(faster);
  const std::vector<double> slower_levels = holm_levels(slower, settings.alpha);
  const std::vector<double> faster_levels = holm_levels(faster, settings.alpha);
  for (std::size_t i = 0; i < judged.size(); ++i) {
    DriftRow& row = *judged[i];
    row.p_slower_holm = slower_holm[i];
    row.p_faster_holm = faster_holm[i];
    row.lower_level = slower_levels[i];
    row.upper_level = faster_levels[i];
    bound_row(row, settings);
  }

  // DRIFT, IMPROVED, STABLE, TOO FEW; within each the biggest change first, then by name.
  std::stable_sort(
      result.rows.begin(), result.rows.end(), [](const DriftRow& a, const DriftRow& b) {
        const auto key = [](const DriftRow& r) {
          const double size =
              r.verdict == DriftVerdict::kTooFew ? 0.0 : std::abs(r.change(r.slope.estimate));
          return std::make_tuple(verdict_rank(r.verdict), -size, r.name);
        };
        return key(a) < key(b);
      });
  return result;
}

std::string drift_markdown(const DriftResult& result) {
  const DriftSettings& s = result.settings;
  std::string md = "## canzona-bench drift\n\n";
  const DriftNight& oldest = result.window.front();
  const DriftNight& newest = result.window.back();
  md += fmt::format(
      "History {}: the last {} of its {} runs, device kind {}, backend {}{}, from {} (git {}) to "
      "{} (git {}).\n\n",
      markdown_code(result.folder), result.window.size(), result.runs_in_folder,
      markdown_text(result.device_kind), markdown_text(result.backend),
      result.left_out.empty()
          ? ""
          : fmt::format(" ({} of another device kind or backend left out)", result.left_out.size()),
      markdown_text(oldest.date.empty() ? oldest.file : oldest.date), markdown_text(oldest.git),
      markdown_text(newest.date.empty() ? newest.file : newest.date), markdown_text(newest.git));
  const int judged =
      static_cast<int>(std::count_if(result.rows.begin(), result.rows.end(), [](const DriftRow& r) {
        return r.verdict != DriftVerdict::kTooFew;
      }));
  md += fmt::format(
      "Per row: the Theil–Sen slope of ln(value) against the night index (the median of the "
      "slopes between every two of its nights, so one bad night moves it little), shown as the "
      "change from the row's first night in the window to its last, with Sen's distribution-free "
      "interval (order statistics of those slopes; Kendall's S, normal approximation). DRIFT: "
      "the interval's lower end above +{:.1f} %; IMPROVED: its upper end below -{:.1f} %; each "
      "end at the level Holm's step-down procedure tests it at, for a family-wise error of {} "
      "over the {} judged rows in each direction. cpu rows are judged by CPU time (`cpu_ms`), "
      "others by their time column; projected rows are not judged. A row in fewer than {} of the "
      "runs is TOO FEW.\n\n",
      s.threshold * 100, s.threshold * 100, s.alpha, judged, s.min_runs);

  md +=
      "| benchmark | metric | nights | first night | last night | change [interval] | p slower "
      "(Holm) | verdict |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const DriftRow& row : result.rows) {
    const bool is_judged = row.verdict != DriftVerdict::kTooFew;
    md += fmt::format("| {} | {} | {} of {} | {} | {} | {} | {} | **{}** |\n",
                      markdown_code(row.name), markdown_text(row.metric), row.nights.size(),
                      result.window.size(), format_ms(row.values.front()),
                      format_ms(row.values.back()), change_cell(row),
                      is_judged ? fmt::format("{:.3g}", row.p_slower_holm) : "-",
                      drift_verdict_name(row.verdict));
  }
  const int code = result.exit_code();
  md += fmt::format("\n**Verdict**: {} → {} (exit {})\n", verdict_summary(result),
                    code == 0 ? "no drift" : "DRIFT", code);
  return md;
}

nlohmann::json drift_json(const DriftResult& result) {
  const DriftSettings& s = result.settings;
  nlohmann::json j;
  j["canzona_drift"] = 1;
  j["settings"] = {{"last", s.last},
                   {"threshold", s.threshold},
                   {"alpha", s.alpha},
                   {"min_runs", s.min_runs},
                   {"filter", s.filter}};
  j["folder"] = result.folder;
  j["device_kind"] = result.device_kind;
  j["backend"] = result.backend;
  j["runs_in_folder"] = result.runs_in_folder;
  j["left_out"] = result.left_out;
  nlohmann::json window = nlohmann::json::array();
  for (const DriftNight& n : result.window) {
    window.push_back({{"file", n.file}, {"date", n.date}, {"git", n.git}});
  }
  j["window"] = std::move(window);
  nlohmann::json rows = nlohmann::json::array();
  for (const DriftRow& row : result.rows) {
    nlohmann::json r = {{"name", row.name},
                        {"metric", row.metric},
                        {"verdict", drift_verdict_name(row.verdict)},
                        {"nights", row.nights},
                        {"values", row.values},
                        {"nights_spanned", row.nights_spanned()}};
    if (row.verdict != DriftVerdict::kTooFew) {
      r["slope_per_night"] = row.slope.estimate;
      r["slope_interval"] = {slope_or_null(row.slope.lower), slope_or_null(row.slope.upper)};
      r["change"] = row.change(row.slope.estimate);
      r["interval"] = {change_or_null(row, row.slope.lower), change_or_null(row, row.slope.upper)};
      r["p_slower"] = row.p_slower;
      r["p_faster"] = row.p_faster;
      r["p_slower_holm"] = row.p_slower_holm;
      r["p_faster_holm"] = row.p_faster_holm;
      r["lower_level"] = row.lower_level;
      r["upper_level"] = row.upper_level;
    }
    rows.push_back(std::move(r));
  }
  j["rows"] = std::move(rows);
  nlohmann::json counts = nlohmann::json::object();
  for (const auto& [verdict, count] : result.counts()) counts[drift_verdict_name(verdict)] = count;
  j["counts"] = std::move(counts);
  j["exit_code"] = result.exit_code();
  return j;
}

}  // namespace canzona::harness
