// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The exact contiguous multi-bucket partition: the packing bound, then a binary search over the
// makespans above it, each decided by the contiguous search.
#include "canzona/plan/optimal_partition.hpp"

#include "canzona/plan/metrics.hpp"

#include "contiguous_search.hpp"
#include "packing_bound.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace canzona::plan {
namespace {

// Relative distance under which the incumbent counts as proven optimal: loads are sums of the
// same doubles in different orders, and CBC's tolerances sit near 1e-9.
constexpr double kProvenTolerance = 1e-6;

// How many of the ascending `candidates` lie below `makespan` (beyond the loads' rounding).
std::size_t candidates_below(const std::vector<double>& candidates, double makespan) {
  return static_cast<std::size_t>(
      std::lower_bound(candidates.begin(), candidates.end(), makespan * (1 - kProvenTolerance)) -
      candidates.begin());
}

}  // namespace

double PartitionOptimum::gap() const { return lower_bound > 0 ? best_max / lower_bound - 1 : 0.0; }

PartitionOptimum optimal_partition(const layout::Buffer& buffer, std::span<const double> costs,
                                   const DpPartition& start, OracleLimits limits) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("optimal_partition: {} costs for {} entries of buffer '{}'",
                                  costs.size(), buffer.entries.size(), buffer.name));
  }
  for (const double c : costs) {
    if (!std::isfinite(c) || c < 0) {
      throw ConfigError(fmt::format("optimal_partition: cost {} is not a finite value >= 0", c));
    }
  }
  check_partition(buffer, start);
  const auto began = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  };
  const int ranks = buffer.dp;
  const detail::SearchInput input = detail::search_input(buffer, costs);

  PartitionOptimum result;
  result.best = start;
  result.best_max = busiest_rank_cost(buffer, start, costs);
  result.lower_bound = std::max(input.total / ranks, input.largest);
  const auto open = [&] {
    return ranks > 1 && input.total > 0 &&
           result.best_max > result.lower_bound * (1 + kProvenTolerance);
  };
  if (open()) {
    // Atomicity first: the least makespan of the costs as a multiset (buckets ignored), from a
    // small configuration program per candidate makespan; often the optimum already.
    std::vector<double> decided;
    for (const auto& bucket : input.per_bucket)
      decided.insert(decided.end(), bucket.begin(), bucket.end());
    const detail::PackingBound packing = detail::packing_lower_bound(
        decided, ranks, result.best_max, std::max(0.05, limits.seconds / 40));
    result.lower_bound = std::max(result.lower_bound, packing.bound);
    // Then contiguity: binary search over the makespans a packing could have, each decided by
    // the contiguous search. Every candidate below `low` is proven out of reach; a plan found
    // below the incumbent replaces it.
    const auto deadline = began + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(limits.seconds));
    std::size_t low = 0;
    std::size_t high = candidates_below(packing.candidates, result.best_max);
    while (low < high && std::chrono::steady_clock::now() < deadline) {
      const std::size_t mid = low + (high - low) / 2;
      const detail::ContiguousAnswer answer =
          detail::contiguous_fits(input.per_bucket, ranks, packing.candidates[mid], {deadline});
      result.nodes += answer.nodes;
      if (answer.kind == detail::ContiguousAnswer::Kind::kDoesNotFit) {
        low = mid + 1;
        result.lower_bound = std::max(result.lower_bound, low < packing.candidates.size()
                                                              ? packing.candidates[low] * (1 - 1e-9)
                                                              : result.best_max);
        continue;
      }
      high = mid;
      if (answer.kind == detail::ContiguousAnswer::Kind::kFits) {
        DpPartition found = detail::partition_from_search(buffer, costs, answer);
        check_partition(buffer, found);
        const double found_max = busiest_rank_cost(buffer, found, costs);
        if (found_max < result.best_max) {
          result.best = std::move(found);
          result.best_max = found_max;
        }
      }
    }
    // Every candidate below the incumbent proven out of reach: the incumbent is optimal.
    if (low >= candidates_below(packing.candidates, result.best_max)) {
      result.lower_bound = result.best_max;
    }
  }
  // The bounds carry the solvers' tolerances: never report one above a plan that exists.
  result.lower_bound = std::min(result.lower_bound, result.best_max);
  result.proven = result.best_max <= result.lower_bound * (1 + kProvenTolerance);
  result.best.method = result.proven ? "optimal" : "oracle_incumbent";
  result.seconds = elapsed();
  return result;
}

}  // namespace canzona::plan
