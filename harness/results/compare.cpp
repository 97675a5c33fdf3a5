// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/compare.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/statistics.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace canzona::harness {
namespace {

// Refusals found while matching; thrown together so the user sees every difference at once.
class Refusals {
 public:
  // Records a difference that is refused unless `allowed`; `allowed` differences are kept for
  // the report.
  void add(bool allowed, const std::string& what, std::string_view flag,
           std::vector<std::string>& allowed_list) {
    if (allowed) {
      allowed_list.push_back(what);
    } else {
      refused_.push_back(fmt::format("{} (pass {} to compare anyway)", what, flag));
    }
  }
  void throw_if_any(const Run& base, const Run& head) const {
    if (refused_.empty()) return;
    std::string message =
        fmt::format("refusing to compare '{}' with '{}':", base.source, head.source);
    for (const std::string& r : refused_) message += "\n  - " + r;
    throw ConfigError(message);
  }

 private:
  std::vector<std::string> refused_;
};

void check_contexts(const Run& base, const Run& head, const CompareOptions& options,
                    Refusals& refusals, std::vector<std::string>& allowed) {
  require_canzona_provenance(base.context, base.source, options.allow_debug);
  require_canzona_provenance(head.context, head.source, options.allow_debug);
  struct Key {
    const char* key;
    const char* what;
    bool allowed;
    const char* flag;
  };
  const std::array<Key, 3> keys = {{
      {"device_kind", "device kinds differ", options.allow_device_mismatch,
       "--allow-device-mismatch"},
      {"canzona_build_type", "build types differ", options.allow_build_mismatch,
       "--allow-build-mismatch"},
      {"canzona_backend", "backends differ", options.allow_backend_mismatch,
       "--allow-backend-mismatch"},
  }};
  for (const Key& k : keys) {
    const std::string b = base.context_or(k.key, "");
    const std::string c = head.context_or(k.key, "");
    // canzona_backend is written by `canzona-bench run` only; single suites carry the backend
    // in their names.
    if (b.empty() || c.empty() || b == c) continue;
    refusals.add(k.allowed,
                 fmt::format("{}: base {} = '{}', head {} = '{}'", k.what, k.key, b, k.key, c),
                 k.flag, allowed);
  }
}

void compare_counters(const Series& base, const Series& head, RowComparison& row) {
  for (const auto& [key, value] : base.counters) {
    if (!is_deterministic_counter(base.name, key)) continue;
    const std::optional<double> other = head.counter(key);
    // A counter only one side has is a schema change, not a behaviour change.
    if (other && *other != value) row.behaviour_changes.push_back({key, value, *other});
  }
}

void judge_timing(const Series& base, const Series& head, const CompareOptions& options,
                  RowComparison& row) {
  const double b = base.median_ms();
  const double c = head.median_ms();
  row.change = b > 0 ? c / b - 1.0 : (c > 0 ? INFINITY : 0.0);
  const double magnitude = std::abs(row.change);
  const bool utest =
      static_cast<std::int64_t>(base.samples_ms.size()) >= options.utest_repetitions &&
      static_cast<std::int64_t>(head.samples_ms.size()) >= options.utest_repetitions;
  const Verdict moved = row.change > 0 ? Verdict::kSlower : Verdict::kFaster;
  if (utest) {
    // Google Benchmark's compare.py: a U test on the repetitions; a significant move beyond the
    // threshold is a change, an insignificant one is noise.
    row.method = "u-test";
    row.threshold = options.threshold;
    row.p_value = mann_whitney_u(base.samples_ms, head.samples_ms).p_value;
    if (magnitude <= options.threshold) {
      row.verdict = Verdict::kSame;
    } else {
      row.verdict = *row.p_value < options.alpha ? moved : Verdict::kNoisy;
    }
    return;
  }
  // nvbench's compare: the medians against the threshold widened to the smaller of the two
  // relative spreads, known only with at least two repetitions on both sides.
  row.method = "noise";
  const bool spread_known = base.repetitions() >= 2 && head.repetitions() >= 2;
  const double noise = spread_known ? std::min(row.base_cv, row.head_cv) : 0.0;
  row.threshold = std::max(options.threshold, noise);
  if (magnitude <= options.threshold) {
    row.verdict = Verdict::kSame;
  } else if (magnitude <= row.threshold) {
    row.verdict = Verdict::kNoisy;
  } else {
    row.verdict = moved;
  }
}

RowComparison compare_pair(const Series& base, const Series& head, const CompareOptions& options) {
  RowComparison row;
  row.name = bench::registered_name(base.name);
  row.base_projected = base.projected();
  row.head_projected = head.projected();
  row.base_repetitions = base.repetitions();
  row.head_repetitions = head.repetitions();
  if (!base.error) {
    row.base_ms = base.median_ms();
    row.base_cv = base.cv();
  }
  if (!head.error) {
    row.head_ms = head.median_ms();
    row.head_cv = head.cv();
  }
  if (head.error) {
    row.verdict = Verdict::kMissing;
    row.note = "failed in the head: " + *head.error;
    return row;
  }
  if (base.error) {
    row.verdict = Verdict::kNew;
    row.note = "failed in the base: " + *base.error;
    return row;
  }
  compare_counters(base, head, row);
  judge_timing(base, head, options, row);
  return row;
}

RowComparison one_sided(const Series& series, Verdict verdict) {
  RowComparison row;
  row.name = bench::registered_name(series.name);
  row.verdict = verdict;
  const bool in_base = verdict == Verdict::kMissing;
  (in_base ? row.base_projected : row.head_projected) = series.projected();
  (in_base ? row.base_repetitions : row.head_repetitions) = series.repetitions();
  if (!series.error) (in_base ? row.base_ms : row.head_ms) = series.median_ms();
  return row;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::kSame:
      return "SAME";
    case Verdict::kFaster:
      return "FASTER";
    case Verdict::kSlower:
      return "SLOWER";
    case Verdict::kNoisy:
      return "NOISY";
    case Verdict::kNew:
      return "NEW";
    case Verdict::kMissing:
      return "MISSING";
  }
  return "?";
}

bool is_deterministic_counter(const bench::BenchmarkName& name, std::string_view counter) {
  // results/SCHEMA.md, "Counters": the column "deterministic".
  static const std::set<std::string_view> kExact = {"plan_imbalance",
                                                    "imbalance_floor",
                                                    "makespan_over_lower_bound",
                                                    "max_rank_gflop",
                                                    "buckets",
                                                    "matrices_cut",
                                                    "params",
                                                    "state_mib",
                                                    "projected",
                                                    "backend_ops",
                                                    "backend_ops_refresh",
                                                    "host_syncs"};
  if (counter.ends_with("_bytes") || counter.ends_with("_elems")) return true;
  if (kExact.count(counter) != 0) return true;
  // The planner's imbalance is the plan's; the optimizer step's is measured (max / mean of the
  // ranks' step times) and is judged as noise with the timing.
  return name.family == "Planner" && counter == "imbalance";
}

std::map<Verdict, int> Comparison::counts() const {
  std::map<Verdict, int> counts;
  for (const RowComparison& row : rows) ++counts[row.verdict];
  return counts;
}

int Comparison::behaviour_changes() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const RowComparison& r) {
    return !r.behaviour_changes.empty();
  }));
}

namespace {
bool timed_on_both_sides(const RowComparison& row) {
  return !row.method.empty() && row.base_ms && row.head_ms && *row.base_ms > 0 &&
         *row.head_ms > 0 && std::isfinite(*row.head_ms / *row.base_ms);
}
}  // namespace

int Comparison::timed_rows() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), timed_on_both_sides));
}

double Comparison::geomean_ratio() const {
  double log_sum = 0.0;
  int n = 0;
  for (const RowComparison& row : rows) {
    if (!timed_on_both_sides(row)) continue;
    log_sum += std::log(*row.head_ms / *row.base_ms);
    ++n;
  }
  return n == 0 ? 1.0 : std::exp(log_sum / n);
}

int Comparison::exit_code() const {
  const std::map<Verdict, int> c = counts();
  const bool regression = c.count(Verdict::kSlower) != 0 || c.count(Verdict::kMissing) != 0;
  return regression ? 1 : 0;
}

Comparison compare_runs(const Run& base, const Run& head, const CompareOptions& options) {
  if (!(options.threshold >= 0.0)) {
    throw ConfigError(
        fmt::format("--threshold must be a percentage >= 0, got {}", options.threshold * 100.0));
  }
  if (!(options.alpha > 0.0 && options.alpha < 1.0)) {
    throw ConfigError(fmt::format("--alpha must be in (0, 1), got {}", options.alpha));
  }
  if (options.utest_repetitions < 2) {
    throw ConfigError("--utest-repetitions must be at least 2 (the U test needs samples)");
  }
  Comparison comparison;
  comparison.base_source = base.source;
  comparison.head_source = head.source;
  comparison.base_context = base.context;
  comparison.head_context = head.context;
  comparison.options = options;

  Refusals refusals;
  check_contexts(base, head, options, refusals, comparison.allowed_differences);

  const std::optional<bench::NamePattern> filter = name_filter(options.filter.value_or(""));
  auto selected = [&](const Series& s) {
    return !filter || filter->matches(bench::registered_name(s.name));
  };

  std::set<const Series*> matched;
  for (const Series& base_series : base.series) {
    if (!selected(base_series)) continue;
    const Series* head_series = head.find(base_series.name.key, base_series.name.projected);
    if (head_series == nullptr) {
      // The same configuration measured on one side and projected on the other.
      const Series* other = head.find(base_series.name.key, !base_series.name.projected);
      if (other != nullptr) {
        refusals.add(options.allow_projected_mix,
                     fmt::format("'{}' is {} in the base but {} in the head", base_series.name.key,
                                 base_series.name.projected ? "projected" : "measured",
                                 other->name.projected ? "projected" : "measured"),
                     "--allow-projected-mix", comparison.allowed_differences);
        head_series = other;
      }
    }
    if (head_series == nullptr) {
      comparison.rows.push_back(one_sided(base_series, Verdict::kMissing));
      continue;
    }
    matched.insert(head_series);
    const std::string& base_plan = base_series.label_fields.count("plan_hash") != 0
                                       ? base_series.label_fields.at("plan_hash")
                                       : std::string();
    const auto head_plan = head_series->label_fields.find("plan_hash");
    if (!base_plan.empty() && head_plan != head_series->label_fields.end() &&
        head_plan->second != base_plan) {
      refusals.add(options.allow_plan_mismatch,
                   fmt::format("'{}' was planned differently: plan_hash {} in the base, {} "
                               "in the head",
                               base_series.name.key, base_plan, head_plan->second),
                   "--allow-plan-mismatch", comparison.allowed_differences);
    }
    RowComparison row = compare_pair(base_series, *head_series, options);
    if (base_series.projected() != head_series->projected()) {
      row.note = "projected against measured";
    }
    comparison.rows.push_back(std::move(row));
  }
  for (const Series& head_series : head.series) {
    if (selected(head_series) && matched.count(&head_series) == 0) {
      comparison.rows.push_back(one_sided(head_series, Verdict::kNew));
    }
  }
  refusals.throw_if_any(base, head);
  if (comparison.rows.empty()) {
    throw ConfigError(fmt::format("--filter '{}' matches no benchmark of either run",
                                  options.filter.value_or("")));
  }
  // Every row NEW or MISSING: two different grids (another preset, model or rank count), not a
  // regression.
  if (matched.empty()) {
    throw ConfigError(fmt::format(
        "'{}' and '{}' share no benchmark{}: compare runs of the same preset, models and ranks "
        "(canzona-bench run --list shows a run's cases)",
        base.source, head.source,
        options.filter ? fmt::format(" matching --filter '{}'", *options.filter) : ""));
  }
  return comparison;
}

}  // namespace canzona::harness
