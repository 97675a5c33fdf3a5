// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Canzona-for-TP micro-group formation (paper-spec §4.3): which TP rank hosts which TP-parallel
// matrix, batched into micro-groups that each cost one fused gather and one fused scatter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace canzona::plan {

/// How matrices are batched into micro-groups (the `balance` setting of §4.3).
enum class MicroGroupMode {
  kNo,      ///< model order, T consecutive matrices per group, one per host (ASC baseline)
  kSingle,  ///< as kNo after sorting by cost descending (one matrix per host per group)
  kSlot,    ///< cost-sorted stream, LPT-balanced, group closed once a slot reaches the capacity
  kGlobal,  ///< greedy rollback: largest LPT-balanced groups that fit the capacity (Canzona)
};

/// "no", "single", "slot" or "global".
std::string_view to_string(MicroGroupMode mode);

/// Inverse of to_string(). Throws ConfigError naming the bad value and the four choices.
MicroGroupMode parse_micro_group_mode(std::string_view text);

/// One TP-parallel matrix owned by a DP rank's TP group. Items are passed in model order; that
/// order (the position in the vector, not `id`) breaks cost ties.
struct MicroGroupItem {
  std::size_t id = 0;      ///< caller's handle, copied into MicroGroup::slots untouched
  double cost = 0.0;       ///< optimizer work of the full matrix (FLOPs or numel), >= 0, finite
  std::int64_t numel = 0;  ///< elements of the full (gathered) matrix, >= 0; what a host buffers
};

/// A micro-group. slots.size() == tp always (empty slots included); slot j is hosted by TP rank j,
/// which gathers, computes and scatters the matrices listed in it, in the order listed.
struct MicroGroup {
  std::vector<std::vector<std::size_t>> slots;  ///< item ids per slot, in assignment order
  std::vector<double> slot_cost;                ///< Σ cost per slot
  std::vector<std::int64_t> slot_numel;         ///< Σ numel per slot (host buffer, elements)
  /// The largest slot cost: the group's compute time under the serial model of §4.5 (0 if empty).
  double max_slot_cost() const;
};

/// Settings of form_micro_groups().
///
/// Units. The capacity is a number of **elements** and bounds Σ numel of a slot, i.e. the full
/// gradients (and updates) one host buffers per group (§4.4 "memory per host per group <= cap
/// elements"); the LPT balancing inside a group is always by `cost`. The reference code compares
/// cost sums against the capacity; with cost = numel (the default cost model) both rules are the
/// same, and with a FLOPs cost this keeps the capacity a memory bound rather than mixing units.
struct MicroGroupOptions {
  MicroGroupMode mode = MicroGroupMode::kGlobal;
  /// Elements per slot; 0 = unbounded (slot and global then form a single group). Ignored by
  /// kNo and kSingle, whose groups hold one matrix per slot anyway.
  std::int64_t capacity = 0;
};

/// Forms the micro-groups of `items` for a TP group of `tp` ranks, exactly as §4.3:
/// - kNo: model order, consecutive chunks of tp items, i-th item of a chunk -> slot i.
/// - kSingle: the same after a stable sort by cost descending (ties keep model order).
/// - kSlot: stable sort by cost descending; cap' = max(capacity, max numel) (an item larger than
///   the capacity promotes it instead of failing); items stream into one group by LPT (least
///   cost-loaded slot, ties by lowest slot index); the group closes as soon as its largest slot
///   numel is >= cap'. Bound: every slot numel < cap' + max numel <= 2·cap'.
/// - kGlobal: sort by (cost, model index) descending (equal costs: later item first, as the
///   reference's sorted(..., reverse=True)); grow a candidate list item by item, and when the
///   candidate overflows (Σ numel / tp > cap, or a slot of LPT(candidate) holds > cap elements)
///   roll the last item back, emit LPT(candidate) and start the next group with that item.
///   Every slot holds <= capacity elements. Throws ConfigError if an item's numel > capacity.
/// Groups come out in execution order; the result is empty iff `items` is. Pure and
/// deterministic. Throws ConfigError if tp < 1, a cost is negative or not finite, a numel or the
/// capacity is negative, or Σ numel overflows int64.
std::vector<MicroGroup> form_micro_groups(const std::vector<MicroGroupItem>& items, int tp,
                                          const MicroGroupOptions& options);

/// Σ over groups of the largest slot cost: the serial-execution critical path of §4.3's table.
double critical_path(const std::vector<MicroGroup>& groups);

/// The LPT helper of §4.3: stable sort of `items` by cost descending (equal costs keep the given
/// order), then each item goes to the slot with the least cost so far (ties: lowest slot index).
/// Returns one group of tp slots; no capacity. Throws ConfigError on the inputs
/// form_micro_groups() rejects.
MicroGroup lpt(std::vector<MicroGroupItem> items, int tp);

}  // namespace canzona::plan
