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
#include <numeric>

namespace canzona::plan {
namespace {

// Capacities tried: the bound times 1 + kStep·k, k = 1..kMostSteps; the plan found is within
// kStep of the least capacity that fits (when the search settles each one within its budget).
constexpr double kStep = 0.0025;
constexpr int kMostSteps = 160;

double busiest(const layout::Buffer& buffer, const DpPartition& partition,
               std::span<const double> costs) {
  const PartitionMetrics metrics = partition_metrics(buffer, partition, costs, buffer.dp);
  return *std::max_element(metrics.rank_cost.begin(), metrics.rank_cost.end());
}

// The partition of a search's answer: the found runs, zero-cost entries with the entry before
// them (the bucket's first decided entry's owner when they lead it).
DpPartition from_search(const layout::Buffer& buffer, std::span<const double> costs,
                        const detail::ContiguousAnswer& answer) {
  DpPartition found;
  found.method = "searched";
  found.owner.assign(buffer.entries.size(), -1);
  for (const layout::Bucket& bucket : buffer.buckets) {
    const auto& owners = answer.owner[static_cast<std::size_t>(bucket.index)];
    std::size_t next = 0;
    int current = owners.empty() ? 0 : owners.front();
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      if (costs[e] > 0) current = owners[next++];
      found.owner[e] = current;
    }
    found.buckets.push_back(
        BucketCuts{bucket.index, cuts_from_owners(buffer, bucket, found.owner)});
  }
  return found;
}

}  // namespace

DpPartition search_partition(const layout::Buffer& buffer, const DpPartition& start,
                             std::span<const double> costs, long long nodes_per_decision) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("search of buffer '{}': {} costs for {} entries", buffer.name,
                                  costs.size(), buffer.entries.size()));
  }
  check_partition(buffer, start);
  // The positive costs per bucket; zero-cost entries follow their neighbours afterwards.
  std::vector<std::vector<double>> per_bucket(buffer.buckets.size());
  double total = 0;
  double largest = 0;
  for (const layout::Bucket& bucket : buffer.buckets) {
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      if (costs[e] <= 0) continue;
      per_bucket[static_cast<std::size_t>(bucket.index)].push_back(costs[e]);
      total += costs[e];
      largest = std::max(largest, costs[e]);
    }
  }
  DpPartition best = start;
  double best_max = busiest(buffer, start, costs);
  const double low = std::max(total / buffer.dp, largest);
  // Capacities from the bound upwards: near the optimum the search prunes hard (a rank must take
  // nearly a full share) and answers in few nodes either way, while a loose capacity leaves it
  // many full-looking ranks that fail late. The first capacity that fits ends the scan.
  for (int step = 1; step <= kMostSteps; ++step) {
    const double capacity = low * (1 + kStep * step);
    if (capacity >= best_max * (1 - kStep / 2)) break;
    const detail::ContiguousAnswer answer =
        detail::contiguous_fits(per_bucket, buffer.dp, capacity, {.nodes = nodes_per_decision});
    if (answer.kind != detail::ContiguousAnswer::Kind::kFits) continue;
    DpPartition found = from_search(buffer, costs, answer);
    // Strictly lower beyond rounding, so that an equal plan does not replace the one given.
    if (const double found_max = busiest(buffer, found, costs); found_max < best_max * (1 - 1e-9)) {
      best = std::move(found);
      best_max = found_max;
    }
    break;
  }
  return best;
}

}  // namespace canzona::plan
