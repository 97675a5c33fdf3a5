// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/ab.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace canzona::harness {

std::string_view ab_verdict_name(AbVerdict verdict) {
  switch (verdict) {
    case AbVerdict::kSame:
      return "SAME";
    case AbVerdict::kFaster:
      return "FASTER";
    case AbVerdict::kSlower:
      return "SLOWER";
    case AbVerdict::kUnconfirmed:
      return "UNCONFIRMED";
    case AbVerdict::kInconclusive:
      return "INCONCLUSIVE";
    case AbVerdict::kNoisy:
      return "NOISY";
    case AbVerdict::kMissing:
      return "MISSING";
    case AbVerdict::kNew:
      return "NEW";
  }
  return "?";
}

void check_ab_settings(const AbSettings& s) {
  const auto fail = [](const std::string& message) { throw ConfigError(message); };
  if (!(s.threshold > 0 && s.threshold < 1)) {
    fail(fmt::format("--threshold {} %: give a percentage above 0 and below 100",
                     s.threshold * 100));
  }
  if (!(s.margin > 0 && s.margin <= s.threshold)) {
    fail(fmt::format(
        "--margin {} %: give a percentage above 0 and at most --threshold ({} %); a margin "
        "wider than the threshold would call a regression SAME",
        s.margin * 100, s.threshold * 100));
  }
  if (!(s.alpha > 0 && s.alpha < 0.5)) {
    fail(fmt::format("--alpha {}: give a family-wise error above 0 and below 0.5", s.alpha));
  }
  if (!(s.confidence >= 0.5 && s.confidence < 1)) {
    fail(fmt::format("--confidence {}: give a level in [0.5, 1)", s.confidence));
  }
  if (s.pairs < 2) fail(fmt::format("--pairs {}: a t interval needs at least 2 pairs", s.pairs));
  if (s.more_pairs < 1) fail(fmt::format("--more-pairs {}: give at least 1", s.more_pairs));
  if (s.max_pairs < s.pairs) {
    fail(fmt::format("--max-pairs {} is below --pairs {}; give at least as many", s.max_pairs,
                     s.pairs));
  }
}

std::map<AbVerdict, int> AbResult::counts() const {
  std::map<AbVerdict, int> counts;
  for (const AbRow& row : rows) ++counts[row.verdict];
  return counts;
}

int AbResult::exit_code() const {
  const bool failed = std::any_of(rows.begin(), rows.end(), [](const AbRow& r) {
    return r.verdict == AbVerdict::kSlower || r.verdict == AbVerdict::kMissing;
  });
  const bool changed = std::any_of(changes.begin(), changes.end(),
                                   [](const AbDeterministicChange& c) { return !c.allowed; });
  return failed || changed ? 1 : 0;
}

std::string ab_metric(const Run& run, const Series& series) {
  const bool cpu = run.context_or("canzona_backend", "") == "cpu";
  return cpu && !series.projected() && series.counter("cpu_ms") ? "cpu_ms" : "real_time";
}

double ab_value(const Series& series, const std::string& metric) {
  if (metric == "real_time") return series.median_ms();
  const std::optional<double> value = series.counter(metric);
  CANZONA_CHECK(value.has_value(), "a row without the counter it is judged by");
  return *value;
}

namespace {

AbStatistic statistic_of(const std::vector<AbPair>& pairs, const AbSettings& settings) {
  AbStatistic s;
  std::vector<double> log_ratios;
  for (const AbPair& p : pairs) {
    // A pair the command did not void but that has no ratio (a zero time) does not count either.
    if (!p.voided.empty() || !(p.base > 0 && p.head > 0 && std::isfinite(p.head / p.base))) {
      ++s.voided;
      continue;
    }
    log_ratios.push_back(std::log(p.head / p.base));
  }
  s.pairs = static_cast<int>(log_ratios.size());
  if (log_ratios.size() < 2) return s;  // no interval yet: INCONCLUSIVE
  s.log_ratio = t_interval(log_ratios, settings.confidence);
  s.p_slower = t_test_above(log_ratios, std::log1p(settings.threshold));
  for (double& r : log_ratios) r = -r;
  s.p_faster = t_test_above(log_ratios, -std::log1p(-settings.threshold));
  return s;
}

}  // namespace

void compute_ab_statistics(std::vector<AbRow*>& rows, const AbSettings& settings,
                           bool confirmation) {
  std::vector<double> slower;
  std::vector<double> faster;
  for (AbRow* row : rows) {
    AbStatistic s = statistic_of(confirmation ? row->confirmation : row->pairs, settings);
    slower.push_back(s.p_slower);
    faster.push_back(s.p_faster);
    if (confirmation) {
      row->confirmation_statistic = s;
    } else {
      row->statistic = s;
    }
  }
  const std::vector<double> slower_holm = holm_adjusted(slower);
  const std::vector<double> faster_holm = holm_adjusted(faster);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    AbStatistic& s = confirmation ? *rows[i]->confirmation_statistic : rows[i]->statistic;
    s.p_slower_holm = slower_holm[i];
    s.p_faster_holm = faster_holm[i];
  }
}

AbVerdict decide_ab_row(const AbStatistic& s, const AbSettings& settings) {
  if (s.pairs >= 2) {
    if (s.p_slower_holm <= settings.alpha) return AbVerdict::kSlower;
    if (s.p_faster_holm <= settings.alpha) return AbVerdict::kFaster;
    if (s.log_ratio.lower >= std::log1p(-settings.margin) &&
        s.log_ratio.upper <= std::log1p(settings.margin)) {
      return AbVerdict::kSame;
    }
  }
  return s.pairs + s.voided >= settings.max_pairs ? AbVerdict::kNoisy : AbVerdict::kInconclusive;
}

std::vector<AllowedChange> parse_allowed_changes(std::string_view text, std::string_view source) {
  std::vector<AllowedChange> allowed;
  std::istringstream lines{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::string content = line.substr(0, line.find('#'));
    std::istringstream fields(content);
    std::string row;
    std::string counter;
    std::string extra;
    if (!(fields >> row)) continue;  // blank or a comment
    if (!(fields >> counter) || (fields >> extra)) {
      throw ConfigError(fmt::format(
          "{}:{}: '{}' is not 'ROW_REGEX COUNTER_REGEX' (two fields, then an optional # comment)",
          source, number, line));
    }
    const std::string where = fmt::format("{}:{}", source, number);
    allowed.push_back({bench::NamePattern(row, where + ": ROW_REGEX"),
                       bench::NamePattern(counter, where + ": COUNTER_REGEX"), line});
  }
  return allowed;
}

std::vector<AbDeterministicChange> deterministic_changes(
    const Run& base, const Run& head, const std::vector<AllowedChange>& allowed) {
  std::vector<AbDeterministicChange> changes;
  const auto add = [&](const std::string& key, const std::string& counter, std::string b,
                       std::string h) {
    const bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const AllowedChange& a) {
      return a.row.matches(key) && a.counter.matches(counter);
    });
    changes.push_back({key, counter, std::move(b), std::move(h), ok});
  };
  for (const Series& b : base.series) {
    const Series* h = head.find(b.name.key, b.projected());
    if (h == nullptr || b.error || h->error) continue;  // MISSING / NEW are the timing's to say
    const std::string key = bench::registered_name(b.name);
    const auto hash = [](const Series& s) {
      const auto it = s.label_fields.find("plan_hash");
      return it == s.label_fields.end() ? std::string() : it->second;
    };
    if (hash(b) != hash(*h)) add(key, "plan_hash", hash(b), hash(*h));
    for (const auto& [counter, value] : b.counters) {
      if (!is_deterministic_counter(b.name, counter)) continue;
      const std::optional<double> other = h->counter(counter);
      if (other && *other != value) {
        add(key, counter, fmt::format("{}", value), fmt::format("{}", *other));
      }
    }
    // A projected row's time is the projector's, a function of the plan and the topology.
    if (b.projected() && b.median_ms() != h->median_ms()) {
      add(key, "time", fmt::format("{}", b.median_ms()), fmt::format("{}", h->median_ms()));
    }
  }
  return changes;
}

}  // namespace canzona::harness
