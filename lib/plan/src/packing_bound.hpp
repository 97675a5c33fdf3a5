// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A lower bound on the busiest rank of any whole-tensor partition that sees the atomicity of the
// entries: the least makespan of the costs on `ranks` identical machines, buckets ignored.
#pragma once

#include <span>
#include <vector>

namespace canzona::plan::detail {

/// A makespan no packing can beat, and the makespans a packing could have above it.
struct PackingBound {
  double bound = 0;
  /// Every configuration load in [bound, upper], ascending (the busiest rank of any packing, so
  /// of any whole-tensor partition, has one of these loads); empty when they were not
  /// enumerated.
  std::vector<double> candidates;
};

/// The least z for which the multiset `costs` fits on `ranks` machines of capacity z, each item
/// whole (P||Cmax), or the largest value below it that could be proven, never above it: every
/// whole-tensor partition is such a packing, so the result bounds the contiguous optimum from
/// below. Works on the distinct cost values (a dense model has a handful: one per matrix kind):
/// every machine configuration of load <= `upper` (a known packing's makespan) is enumerated and,
/// for candidate makespans in binary search, a configuration program (Gilmore–Gomory: how many
/// machines use each configuration, covering every item) is solved by CBC, each solve capped at
/// `seconds_per_solve`. Falls back to max(Σ costs / ranks, largest cost) when there are more
/// than 16 distinct costs or 200 000 configurations.
PackingBound packing_lower_bound(std::span<const double> costs, int ranks, double upper,
                                 double seconds_per_solve);

}  // namespace canzona::plan::detail
