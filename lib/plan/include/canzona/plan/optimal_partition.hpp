// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The exact answer the DP planners are judged against: the whole-tensor partition of a ZeRO-1
// buffer whose busiest rank costs least, with a proven lower bound (COIN-OR CBC for the packing
// bound, an exhaustive contiguous search for the rest). An oracle for tests and the planner
// suite, never on a step's path.
#pragma once

#include <canzona/layout/zero1.hpp>

#include <span>

#include "canzona/plan/dp_partition.hpp"

namespace canzona::plan {

/// How long the solver may search before it reports what it has.
struct OracleLimits {
  double seconds = 10;  ///< wall-clock cap of the branch and bound
};

/// What the solver proved about the best whole-tensor partition of a buffer.
struct PartitionOptimum {
  /// The best partition known: the solver's, or `start` when the solver found nothing better.
  /// method = "optimal" when proven, otherwise "oracle_incumbent".
  DpPartition best;
  double best_max = 0;  ///< the busiest rank's cost of `best`
  /// No whole-tensor partition of the buffer has a busiest rank cheaper than this: the larger of
  /// max(Σ cost / dp, largest cost) and the solver's proven bound.
  double lower_bound = 0;
  /// best_max is within a relative 1e-6 of lower_bound: `best` is an optimum.
  bool proven = false;
  double seconds = 0;   ///< the solver's wall time
  long long nodes = 0;  ///< branch-and-bound nodes explored
  /// best_max / lower_bound - 1: how far the optimum may lie below `best` (0 when proven; 0 also
  /// when every cost is zero).
  double gap() const;
};

/// Minimises the busiest rank's Σ costs over every whole-tensor DP partition of `buffer`
/// (DESIGN §3: each entry goes to one rank; within a bucket the owners never decrease, so each
/// rank's slice is one contiguous run). Two stages, both proofs: (1) atomicity — the least
/// makespan of the costs as a multiset on dp machines, buckets ignored (every configuration of
/// the distinct costs up to `start`'s makespan enumerated, a configuration program per candidate
/// makespan solved by CBC); (2) contiguity — a binary search over the candidate makespans above
/// that bound, each decided by the planner's contiguous search run without a node budget (a
/// candidate it shows infeasible raises the bound; one it fills gives a better plan). Entries of
/// zero cost follow their bucket's neighbours. `start` (any partition check_partition accepts,
/// e.g. the planner's) is the first incumbent, so the result is never worse than it. Where
/// `limits.seconds` runs out, `best` and `lower_bound` are what was proven by then. One rank or
/// no positive cost: `start` is optimal at once. ConfigError when costs.size() !=
/// buffer.entries.size() or a cost is negative or not finite.
PartitionOptimum optimal_partition(const layout::Buffer& buffer, std::span<const double> costs,
                                   const DpPartition& start, OracleLimits limits = {});

}  // namespace canzona::plan
