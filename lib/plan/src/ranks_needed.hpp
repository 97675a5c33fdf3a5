// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How many ranks the items a contiguous search has left need at least, whatever the order: the
// bound that lets the search give up on a state long before its last ranks.
#pragma once

#include "item_configurations.hpp"

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace canzona::plan::detail {

/// A lower bound on the ranks of capacity `capacity` that the buckets' remainders need, as a
/// multiset of items (contiguity ignored): the optimum of the configuration LP (Gilmore–Gomory:
/// fractional counts of rank configurations covering every item), rounded up. It is solved in its
/// dual, max Σ n_t·y_t subject to Σ_t c_t·y_t <= 1 for every maximal configuration c, whose
/// feasible points do not depend on the counts n: any one of them bounds, so a simplex cut short
/// still gives a valid bound, and the y found is scaled back inside the polytope before use.
/// Stronger than Σ / capacity and than the count of items above half the capacity (both are dual
/// points): Qwen3's few matrix sizes pack with waste that the sum does not see.
///
/// Answers are remembered per count vector. Inactive (at_least answers 0) when the items have
/// more than kMostTypes sizes or the capacity admits more than kMostConfigurations
/// configurations: many small items per rank pack with little waste, and the sum bound suffices.
class RanksNeeded {
 public:
  /// `per_bucket[b]`: the positive costs of bucket b, in buffer order (contiguous_fits's input).
  RanksNeeded(const std::vector<std::vector<double>>& per_bucket, double capacity);

  bool active() const { return active_; }
  /// The bound for what is left when bucket b's remainder starts at `position[b]`.
  int at_least(std::span<const int> position);

 private:
  int lp_bound(const std::vector<int>& counts) const;

  bool active_ = false;
  std::vector<std::vector<int>> maximal_;  // per maximal configuration: items of each type
  // Per bucket and position: items of each type from there to the bucket's end, type-major.
  std::vector<std::vector<int>> suffix_counts_;
  std::vector<std::uint64_t> radix_;  // count vectors as one mixed-radix key
  std::vector<int> counts_;           // at_least's buffer
  std::unordered_map<std::uint64_t, int> remembered_;
};

}  // namespace canzona::plan::detail
