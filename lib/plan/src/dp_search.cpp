// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The partition's last refinement: capacities for the busiest rank from the lower bound upwards,
// each decided by the contiguous search under a node budget.
#include "canzona/plan/dp_partition.hpp"

#include "canzona/plan/metrics.hpp"
#include "contiguous_search.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace canzona::plan {
namespace {

// Capacities tried: the bound times 1 + kStep·k, k = 1..kMostSteps; the plan found is within
// kStep of the least capacity that fits (when the search settles each one within its budget).
constexpr double kStep = 0.0025;
constexpr int kMostSteps = 160;
// After each capacity the search leaves undecided the scan's stride doubles, up to this many
// steps: undecided capacities come in runs, and each costs the whole node budget.
constexpr int kWidestStride = 8;
// The capacities a widened stride skipped are tried afterwards with this share of the budget:
// what the scan spent per capacity before the stride widened and the orders got a budget each,
// so that no capacity is decided with fewer nodes than then.
constexpr long long kFillInShare = 5;

}  // namespace

DpPartition search_partition(const layout::Buffer& buffer, const DpPartition& start,
                             std::span<const double> costs, long long nodes_per_decision) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("search of buffer '{}': {} costs for {} entries", buffer.name,
                                  costs.size(), buffer.entries.size()));
  }
  check_partition(buffer, start);
  const detail::SearchInput input = detail::search_input(buffer, costs);
  const std::vector<std::vector<double>> mirror = detail::mirrored(input.per_bucket);
  DpPartition best = start;
  double best_max = busiest_rank_cost(buffer, start, costs);
  const double low = std::max(input.total / buffer.dp, input.largest);
  const auto capacity_at = [&](int step) { return low * (1 + kStep * step); };
  const auto below_best = [&](int step) { return capacity_at(step) < best_max * (1 - kStep / 2); };
  // Decides one capacity and keeps the plan found when it is lower than the best; returns the
  // answer's kind.
  const auto try_capacity = [&](int step, long long nodes) {
    detail::ContiguousAnswer answer =
        detail::contiguous_fits(input.per_bucket, buffer.dp, capacity_at(step), {.nodes = nodes});
    if (answer.kind == detail::ContiguousAnswer::Kind::kUnknown) {
      answer = detail::contiguous_fits(mirror, buffer.dp, capacity_at(step), {.nodes = nodes});
      if (answer.kind == detail::ContiguousAnswer::Kind::kFits) detail::unmirror(answer, buffer.dp);
    }
    if (answer.kind != detail::ContiguousAnswer::Kind::kFits) return answer.kind;
    DpPartition found = detail::partition_from_search(buffer, costs, answer);
    // Strictly lower beyond rounding, so that an equal plan does not replace the one given.
    if (const double found_max = busiest_rank_cost(buffer, found, costs);
        found_max < best_max * (1 - 1e-9)) {
      best = std::move(found);
      best_max = found_max;
    }
    return answer.kind;
  };
  // Capacities from the bound upwards: near the optimum the search prunes hard (a rank must take
  // nearly a full share) and answers in few nodes either way, while a loose capacity leaves it
  // many full-looking ranks that fail late. The first capacity that fits ends the scan.
  std::vector<bool> tried(kMostSteps + 1, false);
  int first_skipped = 0;
  for (int step = 1, stride = 1; step <= kMostSteps && below_best(step); step += stride) {
    tried[static_cast<std::size_t>(step)] = true;
    const auto kind = try_capacity(step, nodes_per_decision);
    if (kind == detail::ContiguousAnswer::Kind::kFits) break;
    if (kind == detail::ContiguousAnswer::Kind::kUnknown) {
      if (first_skipped == 0) first_skipped = step + 1;
      stride = std::min(2 * stride, kWidestStride);
    }
  }
  // Then the skipped capacities below the plan found, upwards, until one fits.
  for (int step = first_skipped; step > 0 && step <= kMostSteps && below_best(step); ++step) {
    if (tried[static_cast<std::size_t>(step)]) continue;
    if (try_capacity(step, nodes_per_decision / kFillInShare) ==
        detail::ContiguousAnswer::Kind::kFits) {
      break;
    }
  }
  return best;
}

}  // namespace canzona::plan
