// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_rank_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <numeric>
#include <string_view>

#include "plan_units.hpp"

namespace canzona::harness {
namespace {

// Everything a row prints; ranks whose loads agree on all of it share a row.
bool same_load(const plan::RankLoad& a, const plan::RankLoad& b) {
  return a.cost == b.cost && a.flops == b.flops && a.adamw_flops == b.adamw_flops &&
         a.adamw_elements == b.adamw_elements && a.state_bytes == b.state_bytes &&
         a.bytes_sent == b.bytes_sent && a.bytes_received == b.bytes_received;
}

std::string range(int first, int last) {
  return first == last ? fmt::format("{}", first) : fmt::format("{}-{}", first, last);
}

struct RowLabel {
  std::string rank, dp, tp;
};

RowLabel label(const RankRun& run, int tp) {
  return {range(run.first, run.last), range(run.first / tp, run.last / tp),
          range(run.first % tp, run.first / tp == run.last / tp ? run.last % tp : tp - 1)};
}

// The phases that move bytes (compute never does), in step order.
constexpr std::array<plan::Phase, 4> kCommPhases = {plan::Phase::kGradSync, plan::Phase::kTpGather,
                                                    plan::Phase::kTpScatter,
                                                    plan::Phase::kParamSync};

// Prints the selected rows of one table; `row` formats the columns after rank, dp and tp. Ranks
// left out between two printed rows get one "..." line so gaps are never silent.
template <typename RowFormatter>
void print_rows(std::back_insert_iterator<std::string> it, const std::vector<RankRun>& runs,
                const std::vector<std::size_t>& shown, int tp, RowFormatter&& row) {
  int next_rank = 0;
  for (std::size_t i : shown) {
    const RankRun& run = runs[i];
    if (run.first > next_rank) {
      fmt::format_to(it, "  {:>9}  {} not shown\n", "...",
                     counted(static_cast<std::size_t>(run.first - next_rank), "rank"));
    }
    const RowLabel l = label(run, tp);
    std::string line = fmt::format("  {:>9} {:>6} {:>5}  {}", l.rank, l.dp, l.tp, row(run));
    line.erase(line.find_last_not_of(' ') + 1);  // an empty bar leaves trailing blanks
    fmt::format_to(it, "{}\n", line);
    next_rank = run.last + 1;
  }
  if (!runs.empty() && runs.back().last + 1 > next_rank) {
    fmt::format_to(it, "  {:>9}  {} not shown\n", "...",
                   counted(static_cast<std::size_t>(runs.back().last + 1 - next_rank), "rank"));
  }
}

}  // namespace

std::vector<RankRun> collapse_identical_ranks(const std::vector<plan::RankLoad>& ranks, int tp) {
  // First within each DP rank, then whole DP ranks (runs covering all their TP ranks) together.
  std::vector<RankRun> within;
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) {
    const bool extends = !within.empty() && r % tp != 0 &&
                         same_load(ranks[static_cast<std::size_t>(within.back().first)],
                                   ranks[static_cast<std::size_t>(r)]);
    if (extends) {
      within.back().last = r;
    } else {
      within.push_back({r, r});
    }
  }
  auto whole_dp_rank = [tp](const RankRun& run) {
    return run.first % tp == 0 && run.last == run.first + tp - 1;
  };
  std::vector<RankRun> runs;
  for (const RankRun& run : within) {
    const bool extends = !runs.empty() && whole_dp_rank(run) && runs.back().first % tp == 0 &&
                         (runs.back().last + 1) % tp == 0 &&
                         same_load(ranks[static_cast<std::size_t>(runs.back().first)],
                                   ranks[static_cast<std::size_t>(run.first)]);
    if (extends) {
      runs.back().last = run.last;
    } else {
      runs.push_back(run);
    }
  }
  return runs;
}

std::vector<std::size_t> select_runs(const std::vector<RankRun>& runs,
                                     const std::vector<plan::RankLoad>& ranks, bool all) {
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (all || runs.size() <= kMaxRankRows) return order;
  auto cost = [&](std::size_t i) { return ranks[static_cast<std::size_t>(runs[i].first)].cost; };
  std::vector<std::size_t> by_cost = order;
  // Stable, so equal costs keep rank order: the lower rank wins a tie at either end.
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
  std::vector<std::size_t> shown(by_cost.begin(), by_cost.begin() + kShownExtremes);
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](std::size_t a, std::size_t b) { return cost(a) < cost(b); });
  shown.insert(shown.end(), by_cost.begin(), by_cost.begin() + kShownExtremes);
  std::sort(shown.begin(), shown.end());
  shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
  return shown;
}

std::string bar(double value, double max, int width) {
  static constexpr std::array<std::string_view, 8> kEighths = {"",  "▏", "▎", "▍",
                                                               "▌", "▋", "▊", "▉"};
  if (max <= 0 || value <= 0) return "";
  const auto eighths =
      static_cast<long>(std::lround(std::min(value / max, 1.0) * static_cast<double>(width) * 8));
  std::string out;
  for (long i = 0; i < eighths / 8; ++i) out += "█";
  out += kEighths[static_cast<std::size_t>(eighths % 8)];
  return out;
}

std::string format_rank_tables(const PlanReport& report, bool all_ranks) {
  const std::vector<plan::RankLoad>& ranks = report.metrics.ranks;
  const int tp = report.plan.tp();
  const std::vector<RankRun> runs = collapse_identical_ranks(ranks, tp);
  const std::vector<std::size_t> shown = select_runs(runs, ranks, all_ranks);

  double max_flops = 0;
  double max_adamw = 0;
  for (const plan::RankLoad& load : ranks) {
    max_flops = std::max(max_flops, load.flops);
    max_adamw = std::max(max_adamw, load.adamw_flops);
  }
  const double max_cost = report.metrics.max_cost;
  const Unit cost = cost_unit(report.plan.options.cost, max_cost);
  const Unit flops = flop_unit(max_flops);
  const Unit adamw = flop_unit(max_adamw);

  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "\nPer rank: {} in {} (identical ranks share a row)",
                 counted(ranks.size(), "rank"), counted(runs.size(), "row"));
  if (shown.size() < runs.size()) {
    fmt::format_to(it, "; showing the {} busiest and {} least busy, --all-ranks prints all",
                   kShownExtremes, kShownExtremes);
  }
  fmt::format_to(it, "\n\n");

  constexpr int kBarWidth = 30;
  const std::string cost_header = fmt::format("cost {}", cost.name);
  const std::string flops_header = fmt::format("flops {}", flops.name);
  const std::string adamw_header = fmt::format("adamw {}", adamw.name);
  fmt::format_to(it, "  {:>9} {:>6} {:>5}  {:>12} {:>12} {:>12} {:>11}  {}\n", "rank", "dp", "tp",
                 cost_header, flops_header, adamw_header, "state MiB",
                 "cost / busiest rank's cost");
  print_rows(it, runs, shown, tp, [&](const RankRun& run) {
    const plan::RankLoad& load = ranks[static_cast<std::size_t>(run.first)];
    return fmt::format("{:>12.3f} {:>12.3f} {:>12.3f} {:>11}  {}", load.cost / cost.scale,
                       load.flops / flops.scale, load.adamw_flops / adamw.scale,
                       mib(static_cast<double>(load.state_bytes)),
                       bar(load.cost, max_cost, kBarWidth));
  });

  fmt::format_to(it, "\n  {:>9} {:>6} {:>5} ", "rank", "dp", "tp");
  for (plan::Phase phase : kCommPhases) fmt::format_to(it, " {:>21}", plan::to_string(phase));
  fmt::format_to(it, "\n  {:>9} {:>6} {:>5} ", "", "", "");
  for (std::size_t i = 0; i < kCommPhases.size(); ++i) {
    fmt::format_to(it, " {:>21}", "MiB sent / received");
  }
  fmt::format_to(it, "\n");
  print_rows(it, runs, shown, tp, [&](const RankRun& run) {
    const plan::RankLoad& load = ranks[static_cast<std::size_t>(run.first)];
    std::string cells;
    for (plan::Phase phase : kCommPhases) {
      const auto p = static_cast<std::size_t>(phase);
      const std::string cell = fmt::format("{} / {}", mib(static_cast<double>(load.bytes_sent[p])),
                                           mib(static_cast<double>(load.bytes_received[p])));
      fmt::format_to(std::back_inserter(cells), "{:>21} ", cell);
    }
    cells.pop_back();
    return cells;
  });
  return out;
}

}  // namespace canzona::harness
