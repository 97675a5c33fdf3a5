// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The A/B regression gate (`canzona-bench ab`): base and head measured on one node in one job,
// one *sample* being one fresh process of a side's `run`, samples taken in pairs in a balanced
// random order (AB and BA equally often). Per row, the statistic is the mean over pairs of
// ln(head / base) with a Student's t interval; a row is SLOWER when it is slower than the
// threshold at a family-wise error over all gated rows (Holm), SAME when its interval lies
// inside the equivalence margin, INCONCLUSIVE otherwise (more pairs for those rows, up to a
// cap, then NOISY with its interval). A SLOWER row is confirmed by a fresh batch before the
// gate fails. Why pairs of processes and not repetitions of one: the variance that matters lives
// between processes (results/tables/gate-benchmark-smoke.md).
//
// This header is the pure part (what the pairs say); ab_command.cpp takes the samples.
#pragma once

#include <canzona/bench/name_pattern.hpp>
#include <canzona/harness/compare.hpp>
#include <canzona/harness/run_series.hpp>
#include <canzona/harness/statistics.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

/// What became of one benchmark between base and head.
enum class AbVerdict {
  kSame,          ///< the interval lies inside ±margin
  kFaster,        ///< faster than the threshold at the family-wise error (not a failure)
  kSlower,        ///< slower than the threshold at the family-wise error, confirmed (fails)
  kUnconfirmed,   ///< was SLOWER, but a fresh batch did not say so again (does not fail)
  kInconclusive,  ///< neither yet (only while pairs are being added)
  kNoisy,         ///< neither after the largest number of pairs
  kMissing,       ///< in base, absent or failed in head (fails)
  kNew,           ///< only in head
};

/// "SAME", "SLOWER", ... as printed.
std::string_view ab_verdict_name(AbVerdict verdict);

struct AbSettings {
  double threshold = 0.03;   ///< a slowdown beyond this fraction is a regression
  double margin = 0.03;      ///< SAME when the interval lies inside ±margin (at most threshold)
  double alpha = 0.05;       ///< family-wise error over the gated rows (Holm)
  double confidence = 0.95;  ///< of the printed interval, which also decides SAME
  int pairs = 5;             ///< pairs of the first batch (and of a confirmation batch)
  int more_pairs = 5;        ///< pairs added per round to the INCONCLUSIVE rows
  int max_pairs = 20;        ///< per row and batch; INCONCLUSIVE at this many becomes NOISY
  bool confirm = true;       ///< a fresh batch confirms SLOWER rows
};

/// ConfigError when a setting is out of range (margin above threshold, pairs < 2, ...).
void check_ab_settings(const AbSettings& settings);

/// One pair of samples of a row: each side's value in the row's metric.
struct AbPair {
  double base = 0;
  double head = 0;
  double base_time = 0;  ///< the time column (wall or CUDA-event time), whatever the metric
  double head_time = 0;
  bool base_first = true;
  std::string voided;  ///< why the pair does not count (e.g. GPU clocks changed), "" = counts
};

/// What a row's pairs say.
struct AbStatistic {
  int pairs = 0;           ///< pairs that count
  int voided = 0;          ///< pairs that do not
  MeanInterval log_ratio;  ///< mean of ln(head / base) and its interval
  double p_slower = 1;     ///< one-sided: "not slower than the threshold"
  double p_faster = 1;     ///< one-sided: "not faster than the threshold"
  double p_slower_holm = 1;
  double p_faster_holm = 1;
};

/// One gated row.
struct AbRow {
  std::string key;                   ///< canonical name (a measured row: what --filter selects)
  std::string run_name;              ///< the name as Google Benchmark wrote it (`/manual_time`)
  std::string metric;                ///< "cpu_ms" (cpu backend) or "real_time"
  std::vector<AbPair> pairs;         ///< of the deciding batches
  std::vector<AbPair> confirmation;  ///< of the confirmation batch, when there was one
  AbStatistic statistic;             ///< of `pairs`
  std::optional<AbStatistic> confirmation_statistic;
  AbVerdict verdict = AbVerdict::kInconclusive;
};

/// Rows every sample carries without measuring them (projected rows: pure functions of their
/// inputs), compared exactly, like the deterministic counters of measured rows.
struct AbDeterministicChange {
  std::string key;
  std::string counter;  ///< a deterministic counter, "plan_hash" or "time" (projected rows)
  std::string base;
  std::string head;
  bool allowed = false;  ///< declared in the allow-list
};

/// The gate's whole answer.
struct AbResult {
  AbSettings settings;
  std::uint64_t seed = 0;
  std::string base_command;
  std::string head_command;
  std::map<std::string, std::string> base_context;  ///< of its first sample
  std::map<std::string, std::string> head_context;
  std::vector<nlohmann::json> samples;  ///< one object per process: side, batch, pair, wall, load
  std::vector<AbRow> rows;
  std::vector<AbDeterministicChange> changes;
  double wall_seconds = 0;

  std::map<AbVerdict, int> counts() const;
  /// 1 when a row is SLOWER or MISSING, or a deterministic change is not allowed; else 0.
  int exit_code() const;
};

/// The metric a row is judged by: `cpu_ms` for measured rows of a cpu-backend run that carry
/// it (README of the optimizer-step suite, "What is timed"), the time column otherwise.
std::string ab_metric(const Run& run, const Series& series);

/// The value of `series` in `metric` (its median over the sample's repetitions).
double ab_value(const Series& series, const std::string& metric);

/// Computes each row's statistic from its pairs (the confirmation's too, when present) and the
/// Holm adjustment over `rows` (the family: every row still being judged together).
void compute_ab_statistics(std::vector<AbRow*>& rows, const AbSettings& settings,
                           bool confirmation);

/// The verdict of a row from its statistic: SLOWER / FASTER by the Holm-adjusted p-values,
/// SAME by the interval, else INCONCLUSIVE, or NOISY at `max_pairs`.
AbVerdict decide_ab_row(const AbStatistic& statistic, const AbSettings& settings);

/// The allow-list of intended deterministic changes: lines `ROW_REGEX COUNTER_REGEX` (ECMAScript
/// regexes searched in the canonical name and the counter), '#' comments, blank lines ignored.
/// ConfigError naming the line for anything else.
struct AllowedChange {
  bench::NamePattern row;
  bench::NamePattern counter;
  std::string text;
};
std::vector<AllowedChange> parse_allowed_changes(std::string_view text, std::string_view source);

/// The deterministic differences between two samples of base and head (the plan hash of each
/// measured row, its deterministic counters, the time of projected rows), marked allowed where
/// `allowed` says so.
std::vector<AbDeterministicChange> deterministic_changes(const Run& base, const Run& head,
                                                         const std::vector<AllowedChange>& allowed);

/// The report: provenance of both sides, settings, one line per row with its interval
/// (`+3.1 % [−0.4, +6.8]`), the deterministic changes, and the verdict line.
std::string ab_markdown(const AbResult& result);

/// The same as JSON, every pair included (results/SCHEMA.md, "ab --out").
nlohmann::json ab_json(const AbResult& result);

}  // namespace canzona::harness
