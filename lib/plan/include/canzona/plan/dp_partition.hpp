// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How a ZeRO-1 buffer's buckets are cut among DP ranks: Megatron's even split, the whole-tensor
// static partition of Eq.(1), and Canzona's alpha-balanced partition (paper-spec §2.3, §3.3).
#pragma once

#include <canzona/layout/zero1.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace canzona::plan {

/// The R+1 cut positions of one bucket, in absolute buffer elements: pos[0] = bucket.start,
/// pos[R] = bucket.end, non-decreasing; DP rank r reduce-scatters into and all-gathers from
/// [pos[r], pos[r+1]), which may be empty. These are the per-rank counts of the RS-v / AG-v.
struct BucketCuts {
  int bucket = 0;  ///< Bucket::index
  std::vector<std::int64_t> pos;
  /// True when every slice has the same length: the bucket can use the stock equal-chunk
  /// reduce-scatter / all-gather (paper-spec §3.5 "fast path").
  bool even() const;
  /// Length of rank r's slice.
  std::int64_t slice(int rank) const { return pos[rank + 1] - pos[rank]; }
  /// Every rank's slice length: the per-rank counts of the bucket's RS-v / AG-v.
  std::vector<std::size_t> counts() const;
};

/// A DP partition of one buffer: the cuts of every bucket and who owns each entry.
struct DpPartition {
  std::vector<BucketCuts> buckets;  ///< one per buffer bucket, in bucket order
  /// Per buffer entry (buffer.entries order): the DP rank whose slice holds the whole entry, or
  /// -1 when the entry is cut across ranks (only even_partition produces -1).
  std::vector<int> owner;
  /// The planner that produced it: "even", "static" (Eq.(1), also the alpha-balanced fallback),
  /// "alpha_balanced" (the greedy, accepted), "alpha_balanced_refined" (the greedy improved by
  /// refine_partition and search_partition, accepted), "alpha_greedy" (alpha_greedy_partition),
  /// "refined" (refine_partition) or "searched" (search_partition).
  std::string method;
};

/// Megatron's element-wise ZeRO-1 split: every bucket cut into R equal chunks at
/// bucket.start + r·S, S = bucket.size() / R, regardless of tensor boundaries. owner is the rank
/// whose chunk holds the whole entry, or -1 for an entry the chunks cut apart (fine for AdamW,
/// which is element-wise; a matrix optimizer cannot step such an entry). check_partition rejects
/// the result whenever some entry is cut.
DpPartition even_partition(const layout::Buffer& buffer);

/// Eq.(1) without balancing: entry p belongs to the rank r with
/// start(p) ∈ [bucket.start + r·S, bucket.start + (r+1)·S). The cut between ranks r and r+1 sits
/// at the end of the last entry owned by ranks ≤ r (bucket.start when there is none), so
/// alignment gaps and the bucket's tail padding go to the next slice, exactly as the candidate
/// boundaries of §3.2 do; a rank whose equal chunk holds no entry start gets an empty slice.
/// Deterministic; method = "static".
DpPartition static_partition(const layout::Buffer& buffer);

/// What the greedy of alpha_balanced_partition measures loads and targets in.
enum class BalanceUnit {
  kElements,  ///< slice elements, padding included: the paper's §3.3 greedy, exactly
  /// Additionally run the greedy in cost units (cumulative entry cost at each boundary, padding
  /// free) and keep whichever of the two balances the cost better. Needed when the cost is not
  /// proportional to size (FLOPs of Newton–Schulz grow like rows·cols·min(rows, cols)). At
  /// alpha = 1 (balance only, no communication term) that proposal and ordered_lpt_partition's
  /// are both improved by refine_partition, the lowest max/mean cost of the three is improved
  /// once more by search_partition, and the best of all wins.
  kCost,
};

/// Canzona's alpha-balanced static partition (paper-spec §3.3), for buffer.dp ranks:
///  - buckets visited in DESCENDING size (ties: lower index first), loads counted in slice
///    elements (padding included), global target = Σ bucket sizes / R;
///  - per bucket, want[r] = (1−α)·size/R + α·size·deficit[r]/Σ deficit (the even split when
///    every rank has reached the target), deficit[r] = max(0, target − load[r]);
///  - cut r+1 = the candidate boundary (bucket start, entry ends, bucket end) nearest to the
///    cumulative want Σ_{q≤r} want[q] (measured from the bucket start, never re-based on the
///    previous cut) among those ≥ cut r; ties go to the smaller boundary.
/// With BalanceUnit::kElements the greedy balances element counts and `costs` (one per entry,
/// e.g. from entry_costs) only decides acceptance; with kCost the greedy also runs in cost units
/// and the better of the two (by owner_imbalance) is the proposal. The proposal is used iff its
/// max/mean rank cost is STRICTLY below the static_partition's, otherwise static_partition is
/// returned (method says which). ConfigError when alpha ∉ [0, 1] or costs.size() !=
/// buffer.entries.size().
DpPartition alpha_balanced_partition(const layout::Buffer& buffer, double alpha,
                                     std::span<const double> costs,
                                     BalanceUnit balance = BalanceUnit::kElements);

/// The greedy of alpha_balanced_partition alone, without the acceptance test (method
/// "alpha_greedy"): what the planner proposes before it compares with Eq.(1). `weights` empty:
/// loads in slice elements (§3.3); otherwise one weight >= 0 per entry and loads, targets and
/// boundaries are measured in cumulative weight. For tests, diagnostics and tables.
/// ConfigError when alpha ∉ [0, 1] or the weights are malformed.
DpPartition alpha_greedy_partition(const layout::Buffer& buffer, double alpha,
                                   std::span<const double> weights = {});

/// Improves a whole-tensor partition's cost balance without touching atomicity: block coordinate
/// descent on Σ_r load_r² (cost units), each pass re-dealing every bucket (biggest first) exactly
/// — the entries of a bucket go to ranks in rank order, each rank a contiguous run, chosen by a
/// dynamic program to minimise the sum of squares given the other buckets' loads — until a pass
/// no longer lowers it; then ejection chains from the busiest rank (it hands an entry to B, B
/// hands one of another bucket to C or back, every rank involved ending below the old maximum),
/// which no single-bucket re-deal can find; repeated for up to `max_passes` rounds. Squares
/// rather than the maximum because they also even out the ranks below the maximum, which is what
/// lets the next bucket lower it. Returns the plan with the lowest maximum seen (`start` itself
/// when nothing beats it), method = "refined". Throws like check_partition on a broken `start`
/// and ConfigError when costs.size() != buffer.entries.size().
DpPartition refine_partition(const layout::Buffer& buffer, const DpPartition& start,
                             std::span<const double> costs, int max_passes = 16);

/// Lowers a whole-tensor partition's busiest rank by search: capacities from max(Σ cost / dp,
/// largest cost) upwards in steps of 0.25 % of it, below `start`'s busiest rank, each decided
/// by a depth-first search over the ranks in order (two orders, each capped at
/// `nodes_per_decision` nodes so that the result is a pure function of its input), every rank
/// taking a run from the head of each bucket (owners never decrease along a bucket); a capacity
/// that search leaves undecided is asked again mirrored (the ranks from the last, each taking a
/// run from the tail of every bucket), with the same budget. The stride
/// doubles (up to 8 steps) after each capacity left undecided; the first capacity that fits ends
/// the scan, and then the capacities the stride skipped below it get a try each, upwards, with a
/// fifth of the budget (each still at least what one capacity had before the orders got a
/// budget each), until one fits. What
/// refine_partition's local moves cannot reach (every rank shifting its runs at once) the search
/// finds directly. Returns the plan found (method "searched") when its busiest rank is lower, or
/// `start` when none is lower. Throws like check_partition on a broken `start` and ConfigError when
/// costs.size() != buffer.entries.size().
DpPartition search_partition(const layout::Buffer& buffer, const DpPartition& start,
                             std::span<const double> costs, long long nodes_per_decision = 60000);

/// The deal of one bucket's entries (`costs`, in buffer order) to base.size() ranks in rank order,
/// each rank a contiguous run (possibly empty), that minimises Σ_r (base[r] + cost of r's run)²:
/// the owner of every entry. Exact, O(ranks · k log k) for k entries (the run costs form a Monge
/// matrix, so each rank's row of the dynamic program is solved by divide and conquer); ties go
/// to the earlier split.
std::vector<int> deal_minimising_squares(std::span<const double> base,
                                         std::span<const double> costs);

/// LPT under the atomicity constraint: entries in descending cost, each to the least loaded rank
/// that keeps its bucket's owners non-decreasing given the entries already placed (ties: the
/// rank at the entry's relative position between its placed neighbours). method =
/// "ordered_lpt". ConfigError when costs.size() != buffer.entries.size().
DpPartition ordered_lpt_partition(const layout::Buffer& buffer, std::span<const double> costs);

/// The cuts of `bucket` that give each entry to owner[entry]: cut r+1 is the end of the last
/// entry owned by ranks <= r (the previous cut when rank r owns none), so alignment gaps and
/// the bucket's tail padding go to the next slice. Error unless the bucket's owners are ranks in
/// [0, buffer.dp) that never decrease along the bucket.
std::vector<std::int64_t> cuts_from_owners(const layout::Buffer& buffer,
                                           const layout::Bucket& bucket,
                                           std::span<const int> owner);

/// Checks the atomicity invariant (DESIGN §3) of a whole-tensor partition and throws
/// canzona::Error naming the bucket / entry when: the bucket count or a cut vector's size is
/// wrong; pos[0] or pos[R] is not the bucket's start or end; cuts decrease; a cut falls strictly
/// inside an entry; an entry's owner is not in [0, R) or its slice does not contain the entry.
/// even_partition results fail it as soon as an entry is cut. The executor calls this before
/// running a plan.
void check_partition(const layout::Buffer& buffer, const DpPartition& partition);

/// Max over ranks / mean over ranks of Σ costs of the entries each rank owns; 1 when the total is
/// zero. The acceptance metric of alpha_balanced_partition. Entries with owner -1 are ignored.
double owner_imbalance(const DpPartition& partition, std::span<const double> costs, int ranks);

}  // namespace canzona::plan
