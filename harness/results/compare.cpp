// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/compare.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/statistics.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <regex>
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
  void throw_if_any(const Run& baseline, const Run& candidate) const {
    if (refused_.empty()) return;
    std::string message =
        fmt::format("refusing to compare '{}' with '{}':", baseline.source, candidate.source);
    for (const std::string& r : refused_) message += "\n  - " + r;
    throw ConfigError(message);
  }

 private:
  std::vector<std::string> refused_;
};

void check_contexts(const Run& baseline, const Run& candidate, const CompareOptions& options,
                    Refusals& refusals, std::vector<std::string>& allowed) {
  require_canzona_provenance(baseline.context, baseline.source, options.allow_debug);
  require_canzona_provenance(candidate.context, candidate.source, options.allow_debug);
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
    const std::string b = baseline.context_or(k.key, "");
    const std::string c = candidate.context_or(k.key, "");
    // canzona_backend is written by `canzona-bench run` only; single suites carry the backend
    // in their names.
    if (b.empty() || c.empty() || b == c) continue;
    refusals.add(
        k.allowed,
        fmt::format("{}: baseline {} = '{}', candidate {} = '{}'", k.what, k.key, b, k.key, c),
        k.flag, allowed);
  }
}

std::string display_name(const bench::BenchmarkName& name) {
  return name.projected ? name.key + "/projected" : name.key;
}

void compare_counters(const Series& baseline, const Series& candidate, RowComparison& row) {
  for (const auto& [key, value] : baseline.counters) {
    if (!is_deterministic_counter(baseline.name, key)) continue;
    const std::optional<double> other = candidate.counter(key);
    // A counter only one side has is a schema change, not a behaviour change.
    if (other && *other != value) row.behaviour_changes.push_back({key, value, *other});
  }
}

void judge_timing(const Series& baseline, const Series& candidate, const CompareOptions& options,
                  RowComparison& row) {
  const double b = baseline.median_ms();
  const double c = candidate.median_ms();
  row.change = b > 0 ? c / b - 1.0 : (c > 0 ? INFINITY : 0.0);
  const double magnitude = std::abs(row.change);
  const bool utest =
      static_cast<std::int64_t>(baseline.samples_ms.size()) >= options.utest_repetitions &&
      static_cast<std::int64_t>(candidate.samples_ms.size()) >= options.utest_repetitions;
  const Verdict moved = row.change > 0 ? Verdict::kSlower : Verdict::kFaster;
  if (utest) {
    // Google Benchmark's compare.py: a U test on the repetitions; a significant move beyond the
    // threshold is a change, an insignificant one is noise.
    row.method = "u-test";
    row.threshold = options.threshold;
    row.p_value = mann_whitney_u(baseline.samples_ms, candidate.samples_ms).p_value;
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
  const bool spread_known = baseline.repetitions() >= 2 && candidate.repetitions() >= 2;
  const double noise = spread_known ? std::min(row.baseline_cv, row.candidate_cv) : 0.0;
  row.threshold = std::max(options.threshold, noise);
  if (magnitude <= options.threshold) {
    row.verdict = Verdict::kSame;
  } else if (magnitude <= row.threshold) {
    row.verdict = Verdict::kNoisy;
  } else {
    row.verdict = moved;
  }
}

RowComparison compare_pair(const Series& baseline, const Series& candidate,
                           const CompareOptions& options) {
  RowComparison row;
  row.name = display_name(baseline.name);
  row.baseline_projected = baseline.projected();
  row.candidate_projected = candidate.projected();
  row.baseline_repetitions = baseline.repetitions();
  row.candidate_repetitions = candidate.repetitions();
  if (!baseline.error) {
    row.baseline_ms = baseline.median_ms();
    row.baseline_cv = baseline.cv();
  }
  if (!candidate.error) {
    row.candidate_ms = candidate.median_ms();
    row.candidate_cv = candidate.cv();
  }
  if (candidate.error) {
    row.verdict = Verdict::kMissing;
    row.note = "failed in the candidate: " + *candidate.error;
    return row;
  }
  if (baseline.error) {
    row.verdict = Verdict::kNew;
    row.note = "failed in the baseline: " + *baseline.error;
    return row;
  }
  compare_counters(baseline, candidate, row);
  judge_timing(baseline, candidate, options, row);
  return row;
}

RowComparison one_sided(const Series& series, Verdict verdict) {
  RowComparison row;
  row.name = display_name(series.name);
  row.verdict = verdict;
  const bool in_baseline = verdict == Verdict::kMissing;
  (in_baseline ? row.baseline_projected : row.candidate_projected) = series.projected();
  (in_baseline ? row.baseline_repetitions : row.candidate_repetitions) = series.repetitions();
  if (!series.error) (in_baseline ? row.baseline_ms : row.candidate_ms) = series.median_ms();
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
  return !row.method.empty() && row.baseline_ms && row.candidate_ms && *row.baseline_ms > 0 &&
         *row.candidate_ms > 0 && std::isfinite(*row.candidate_ms / *row.baseline_ms);
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
    log_sum += std::log(*row.candidate_ms / *row.baseline_ms);
    ++n;
  }
  return n == 0 ? 1.0 : std::exp(log_sum / n);
}

int Comparison::exit_code() const {
  const std::map<Verdict, int> c = counts();
  const bool regression = c.count(Verdict::kSlower) != 0 || c.count(Verdict::kMissing) != 0;
  return regression ? 1 : 0;
}

Comparison compare_runs(const Run& baseline, const Run& candidate, const CompareOptions& options) {
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
  comparison.baseline_source = baseline.source;
  comparison.candidate_source = candidate.source;
  comparison.baseline_context = baseline.context;
  comparison.candidate_context = candidate.context;
  comparison.options = options;

  Refusals refusals;
  check_contexts(baseline, candidate, options, refusals, comparison.allowed_differences);

  const std::optional<std::regex> filter = name_filter(options.filter.value_or(""));
  auto selected = [&](const Series& s) {
    return !filter || std::regex_search(display_name(s.name), *filter);
  };

  std::set<const Series*> matched;
  for (const Series& base : baseline.series) {
    if (!selected(base)) continue;
    const Series* cand = candidate.find(base.name.key, base.name.projected);
    if (cand == nullptr) {
      // The same configuration measured on one side and projected on the other.
      const Series* other = candidate.find(base.name.key, !base.name.projected);
      if (other != nullptr) {
        refusals.add(options.allow_projected_mix,
                     fmt::format("'{}' is {} in the baseline but {} in the candidate",
                                 base.name.key, base.name.projected ? "projected" : "measured",
                                 other->name.projected ? "projected" : "measured"),
                     "--allow-projected-mix", comparison.allowed_differences);
        cand = other;
      }
    }
    if (cand == nullptr) {
      comparison.rows.push_back(one_sided(base, Verdict::kMissing));
      continue;
    }
    matched.insert(cand);
    const std::string& base_plan = base.label_fields.count("plan_hash") != 0
                                       ? base.label_fields.at("plan_hash")
                                       : std::string();
    const auto cand_plan = cand->label_fields.find("plan_hash");
    if (!base_plan.empty() && cand_plan != cand->label_fields.end() &&
        cand_plan->second != base_plan) {
      refusals.add(options.allow_plan_mismatch,
                   fmt::format("'{}' was planned differently: plan_hash {} in the baseline, {} "
                               "in the candidate",
                               base.name.key, base_plan, cand_plan->second),
                   "--allow-plan-mismatch", comparison.allowed_differences);
    }
    RowComparison row = compare_pair(base, *cand, options);
    if (base.projected() != cand->projected()) {
      row.note = "projected against measured";
    }
    comparison.rows.push_back(std::move(row));
  }
  for (const Series& cand : candidate.series) {
    if (selected(cand) && matched.count(&cand) == 0) {
      comparison.rows.push_back(one_sided(cand, Verdict::kNew));
    }
  }
  refusals.throw_if_any(baseline, candidate);
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
        baseline.source, candidate.source,
        options.filter ? fmt::format(" matching --filter '{}'", *options.filter) : ""));
  }
  return comparison;
}

}  // namespace canzona::harness
