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
// The beam's bisection stops once the plan is within this share of a capacity shown not to fit
// (DESIGN §5 asks for 2 % of the optimum): a beam that runs dry costs its whole budget.
constexpr double kCloseEnough = 0.01;

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
  const auto depth_first = [&](long long nodes) {
    return [&buffer, nodes](const std::vector<std::vector<double>>& per_bucket, double capacity) {
      return detail::contiguous_fits(per_bucket, buffer.dp, capacity,
                                     {.nodes = nodes, .beam = false});
    };
  };
  int highest_refuted = 0;  // the highest step shown not to fit
  // Decides one capacity and keeps the plan found when it is lower than the best; returns the
  // answer's kind.
  // `ask(costs, capacity)`: contiguous_fits or the beam alone.
  const auto try_capacity = [&](int step, const auto& ask) {
    detail::ContiguousAnswer answer = ask(input.per_bucket, capacity_at(step));
    if (answer.kind == detail::ContiguousAnswer::Kind::kUnknown) {
      answer = ask(mirror, capacity_at(step));
      if (answer.kind == detail::ContiguousAnswer::Kind::kFits) detail::unmirror(answer, buffer.dp);
    }
    if (answer.kind == detail::ContiguousAnswer::Kind::kDoesNotFit) {
      highest_refuted = std::max(highest_refuted, step);
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
    const auto kind = try_capacity(step, depth_first(nodes_per_decision));
    if (kind == detail::ContiguousAnswer::Kind::kFits) break;
    if (kind == detail::ContiguousAnswer::Kind::kUnknown) {
      if (first_skipped == 0) first_skipped = step + 1;
      stride = std::min(2 * stride, kWidestStride);
    }
  }
  // Then the skipped capacities below the plan found, upwards, until one fits.
  for (int step = first_skipped; step > 0 && step <= kMostSteps && below_best(step); ++step) {
    if (tried[static_cast<std::size_t>(step)]) continue;
    if (try_capacity(step, depth_first(nodes_per_decision / kFillInShare)) ==
        detail::ContiguousAnswer::Kind::kFits) {
      break;
    }
  }
  // Last, the beam, by bisection between the highest capacity shown not to fit and the plan
  // found, until the plan is within kCloseEnough of the former: where both depth-first orders
  // backtrack in vain at the last ranks it often finds a deal, but a beam that runs dry costs its
  // whole budget, so it asks a handful of capacities rather than every one.
  const auto beam = [&buffer, nodes = nodes_per_decision * detail::kBeamBudgets](
                        const std::vector<std::vector<double>>& per_bucket, double capacity) {
    return detail::contiguous_fits_in_order(per_bucket, buffer.dp, capacity, {.nodes = nodes},
                                            detail::SearchOrder::kBeam);
  };
  const auto first_not_below_best = [&] {
    int step = highest_refuted + 1;
    while (step <= kMostSteps && below_best(step)) ++step;
    return step;
  };
  const double proven_below = capacity_at(highest_refuted);
  // With more buckets than ranks a rank draws from many buckets, each state of the beam lists
  // thousands of choices and the beam spends its budget long before the last rank (measured on
  // the planner suite's Megatron-bucketed rows: 5-13x the planning time, no plan lower).
  const bool beam_can_finish = buffer.buckets.size() <= static_cast<std::size_t>(buffer.dp);
  for (int lo = highest_refuted + 1, hi = first_not_below_best();
       beam_can_finish && lo < hi && best_max > proven_below * (1 + kCloseEnough);) {
    const int mid = lo + (hi - lo) / 2;
    if (try_capacity(mid, beam) == detail::ContiguousAnswer::Kind::kFits) {
      hi = std::min(mid, first_not_below_best());
    } else {
      lo = mid + 1;
    }
  }
  return best;
}

}  // namespace canzona::plan
