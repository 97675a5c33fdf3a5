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

namespace canzona::plan {
namespace {

// Capacities tried: the bound times 1 + kStep·k, k = 1..kMostSteps; the plan found is within
// kStep of the least capacity that fits (when the search settles each one within its budget).
constexpr double kStep = 0.0025;
constexpr int kMostSteps = 160;

}  // namespace

DpPartition search_partition(const layout::Buffer& buffer, const DpPartition& start,
                             std::span<const double> costs, long long nodes_per_decision) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("search of buffer '{}': {} costs for {} entries", buffer.name,
                                  costs.size(), buffer.entries.size()));
  }
  check_partition(buffer, start);
  const detail::SearchInput input = detail::search_input(buffer, costs);
  DpPartition best = start;
  double best_max = busiest_rank_cost(buffer, start, costs);
  const double low = std::max(input.total / buffer.dp, input.largest);
  // Capacities from the bound upwards: near the optimum the search prunes hard (a rank must take
  // nearly a full share) and answers in few nodes either way, while a loose capacity leaves it
  // many full-looking ranks that fail late. The first capacity that fits ends the scan.
  for (int step = 1; step <= kMostSteps; ++step) {
    const double capacity = low * (1 + kStep * step);
    if (capacity >= best_max * (1 - kStep / 2)) break;
    const detail::ContiguousAnswer answer = detail::contiguous_fits(
        input.per_bucket, buffer.dp, capacity, {.nodes = nodes_per_decision});
    if (answer.kind != detail::ContiguousAnswer::Kind::kFits) continue;
    DpPartition found = detail::partition_from_search(buffer, costs, answer);
    // Strictly lower beyond rounding, so that an equal plan does not replace the one given.
    if (const double found_max = busiest_rank_cost(buffer, found, costs);
        found_max < best_max * (1 - 1e-9)) {
      best = std::move(found);
      best_max = found_max;
    }
    break;
  }
  return best;
}

}  // namespace canzona::plan
