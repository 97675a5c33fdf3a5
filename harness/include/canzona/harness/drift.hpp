// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The slow-drift check (`canzona-bench drift`): the nightly runs of a history folder, the last N
// of them, and per benchmark the trend of its value across those nights. Per row, the statistic
// is the Theil–Sen slope of ln(value) against the night index with Sen's distribution-free
// interval, read as the change from the row's first night in the window to its last. A row is
// DRIFT when the interval's lower end is above +threshold, IMPROVED when its upper end is below
// −threshold, STABLE otherwise; each end is at the level Holm's step-down procedure tests it at
// over every judged row, so the verdicts hold a family-wise error. Why Theil–Sen: a median of
// pairwise slopes barely moves for one bad night, where a least-squares fit would follow it.
//
// ab gates one night against the last green one; drift sees what no single night shows, a row
// that gets 0.5 % slower every night.
#pragma once

#include <canzona/harness/run_series.hpp>
#include <canzona/harness/statistics.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

struct DriftSettings {
  int last = 14;            ///< the window: this many newest runs
  double threshold = 0.03;  ///< a change over the window beyond this fraction is a drift
  double alpha = 0.05;      ///< family-wise error over the judged rows, each direction (Holm)
  int min_runs = 5;         ///< a row in fewer of the window's runs is not judged
  std::string filter;       ///< only rows whose registered name matches (RE2); "" = all
};

/// ConfigError when a setting is out of range (fewer than 3 nights, min_runs above last, ...).
void check_drift_settings(const DriftSettings& settings);

enum class DriftVerdict {
  kDrift,     ///< slower than +threshold over the window at the family-wise error (fails)
  kImproved,  ///< faster than −threshold likewise (reported)
  kStable,    ///< neither
  kTooFew,    ///< in fewer than min_runs of the window's runs: not judged
};

/// "DRIFT", "IMPROVED", "STABLE", "TOO FEW" as printed.
std::string_view drift_verdict_name(DriftVerdict verdict);

/// One run of the window.
struct DriftNight {
  std::string file;  ///< its file name in the history folder
  std::string date;  ///< its context date ("" when it has none)
  std::string git;   ///< its canzona_git_sha
};

/// One benchmark across the window.
struct DriftRow {
  std::string name;            ///< registered name (what --filter selects)
  std::string metric;          ///< "cpu_ms" (cpu backend) or "real_time", as ab judges the row
  std::vector<int> nights;     ///< indices into the window's runs where the row has a value
  std::vector<double> values;  ///< its value (ms, the median of the night's repetitions) there
  SlopeInterval slope;         ///< of ln(value) per night; ends at `lower_level`, `upper_level`
  double p_slower = 1;         ///< one-sided: "not slower than +threshold over the window"
  double p_faster = 1;         ///< one-sided: "not faster than −threshold over the window"
  double p_slower_holm = 1;    ///< Holm-adjusted over the judged rows
  double p_faster_holm = 1;
  double lower_level = 0;  ///< one-sided error of the lower end (Holm's level)
  double upper_level = 0;  ///< of the upper end
  DriftVerdict verdict = DriftVerdict::kTooFew;

  /// Nights from the row's first in the window to its last, both counted.
  int nights_spanned() const;
  /// The fitted change over those nights as a fraction: exp(slope · (nights_spanned − 1)) − 1.
  double change(double slope_per_night) const;
};

/// The check's whole answer.
struct DriftResult {
  DriftSettings settings;
  std::string folder;
  std::string device_kind;  ///< of the newest run: the window's runs all have it
  std::string backend;      ///< likewise
  int runs_in_folder = 0;
  std::vector<std::string> left_out;  ///< files of another device kind or backend
  std::vector<DriftNight> window;     ///< oldest first
  std::vector<DriftRow> rows;         ///< DRIFT, IMPROVED, STABLE, TOO FEW; biggest change first

  std::map<DriftVerdict, int> counts() const;
  /// 1 when a row is DRIFT, else 0.
  int exit_code() const;
};

/// Judges the runs of a history folder, `history` oldest first (read_history). Only runs of the
/// newest run's device kind and backend count; the window is the newest `settings.last` of
/// them. Throws ConfigError for fewer than three such runs, or when no measured row matches the
/// filter.
DriftResult compute_drift(const std::vector<Run>& history, const std::string& folder,
                          const DriftSettings& settings);

/// The report: the window, the method, one line per row (`+4.2 % over 12 nights [+1.1, +7.6]`)
/// and the verdict line.
std::string drift_markdown(const DriftResult& result);

/// The same as JSON, every night's value included (results/SCHEMA.md, "drift --out").
nlohmann::json drift_json(const DriftResult& result);

}  // namespace canzona::harness
