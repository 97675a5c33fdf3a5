// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Does a whole-tensor partition with every rank at most z exist? A depth-first search over the
// ranks in order, each taking a run from the head of every bucket.
#pragma once

#include "canzona/plan/dp_partition.hpp"

#include <canzona/layout/zero1.hpp>

#include <chrono>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace canzona::plan::detail {

/// contiguous_fits's input for a buffer: per bucket, the positive costs in buffer order (entries
/// of zero cost are left out: they fit anywhere between their neighbours), with their sum and
/// largest.
struct SearchInput {
  std::vector<std::vector<double>> per_bucket;
  double total = 0;
  double largest = 0;
};
SearchInput search_input(const layout::Buffer& buffer, std::span<const double> costs);

/// The answer of contiguous_fits.
struct ContiguousAnswer {
  enum class Kind { kFits, kDoesNotFit, kUnknown } kind = Kind::kUnknown;
  /// kFits: per bucket, the rank of each of its items.
  std::vector<std::vector<int>> owner;
  long long nodes = 0;
};

/// Whether the buckets' items (`costs[b]`: the positive costs of bucket b, in buffer order) can
/// be dealt to `ranks` ranks, owners never decreasing along a bucket, with no rank above
/// `capacity`. Ranks are filled in order, each taking a run from the head of every bucket's
/// remainder. What the ranks after a rank can still do depends only on the multiset of the
/// buckets' remainders (as cost sequences), so states are remembered by that multiset, and a rank
/// never takes a longer run from a bucket than from an earlier bucket whose remainder is the same
/// sequence (the swapped choice leaves the same multiset): Qwen3 buffers repeat a layer's
/// matrices, so many buckets' remainders coincide. Only runs after which no further item of any
/// bucket would fit are tried (taking more never hurts: the items left are a suffix of what a
/// smaller take leaves, and any deal of those is still contiguous), a rank must take at least what
/// the ranks after it cannot hold, and a state whose remainder, as a multiset, needs more ranks than
/// are left (RanksNeeded: the configuration LP; the items above half the capacity where that does
/// not apply) is given up at once. Two orders of trying a rank's runs, one after the other: bucket
/// by bucket (cheap, suits many short buckets) and fullest first (suits few long ones); either
/// one's kDoesNotFit is a proof. A rank's list of
/// fullest-first choices is capped, and a failure below a capped list is no proof (kUnknown). Stops
/// with kUnknown at `limits.deadline` (the first order gets half the time to it) or after
/// `limits.nodes` nodes in each order, whichever comes first (a node limit alone keeps the answer a
/// pure function of the input); `nodes` reports both orders' sum.
struct SearchLimits {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  long long nodes = std::numeric_limits<long long>::max();
};
ContiguousAnswer contiguous_fits(const std::vector<std::vector<double>>& costs, int ranks,
                                 double capacity, const SearchLimits& limits);

/// The order in which a rank's runs are tried. Bucket by bucket (the longest run of the first
/// bucket first) costs nothing to set up and suits many short buckets; fullest first (every
/// choice of the rank listed, then tried by load) suits few long buckets, where the first order
/// spends its nodes on a first bucket's alternatives.
enum class SearchOrder { kBucketByBucket, kFullestFirst };
/// contiguous_fits with one order alone (tests ask each).
ContiguousAnswer contiguous_fits_in_order(const std::vector<std::vector<double>>& costs, int ranks,
                                          double capacity, const SearchLimits& limits,
                                          SearchOrder order);

/// The same question mirrored: every bucket's costs in reverse order, so that the search's first
/// rank takes a run from the tail of every bucket (it stands for the last rank). A deal fits one
/// way exactly when its mirror fits the other, but the depth-first search's luck differs between
/// the two ends: a capacity one leaves undecided within its budget the other often settles.
std::vector<std::vector<double>> mirrored(std::vector<std::vector<double>> per_bucket);
/// A kFits answer of the search on mirrored(costs), as the answer for `costs` themselves.
void unmirror(ContiguousAnswer& answer, int ranks);

/// The partition of a kFits answer for `buffer` (whose search_input the search ran on): the
/// found runs, each zero-cost entry with the decided entry before it in its bucket (the first
/// decided entry's owner when it leads the bucket, rank 0 in a bucket with none). method
/// "searched".
DpPartition partition_from_search(const layout::Buffer& buffer, std::span<const double> costs,
                                  const ContiguousAnswer& answer);

}  // namespace canzona::plan::detail
