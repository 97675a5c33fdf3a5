// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The per-rank part of the plan text view: work (cost, FLOPs, optimizer state, with a bar scaled
// to the busiest rank) and communication (bytes per phase). A 256-rank job stays readable in two
// ways: ranks with identical loads share one row, and when more than kMaxRankRows rows remain
// only the busiest and least busy are printed, unless --all-ranks.
#pragma once

#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "plan_report.hpp"

namespace canzona::harness {

/// More rows than this are cut down to the kShownExtremes busiest and least busy.
inline constexpr std::size_t kMaxRankRows = 32;
inline constexpr std::size_t kShownExtremes = 8;

/// Global ranks [first, last] whose loads are identical, printed as one row. A run is either
/// some TP ranks of one DP rank or whole DP ranks (all their TP ranks), so its dp and tp columns
/// are plain ranges.
struct RankRun {
  int first = 0;
  int last = 0;
};

/// Consecutive ranks with identical RankLoad fields merged into runs, in rank order.
std::vector<RankRun> collapse_identical_ranks(const std::vector<plan::RankLoad>& ranks, int tp);

/// Indices into `runs` to print, in rank order: all of them when `all` or when there are at most
/// kMaxRankRows; otherwise the kShownExtremes runs with the highest cost and the kShownExtremes
/// with the lowest (ties: lower rank first).
std::vector<std::size_t> select_runs(const std::vector<RankRun>& runs,
                                     const std::vector<plan::RankLoad>& ranks, bool all);

/// `value / max` of `width` cells drawn with Unicode eighth blocks; empty when max <= 0.
std::string bar(double value, double max, int width);

/// The two per-rank tables.
std::string format_rank_tables(const PlanReport& report, bool all_ranks);

}  // namespace canzona::harness
