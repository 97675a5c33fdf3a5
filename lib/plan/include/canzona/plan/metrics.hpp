// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How good a plan is: per-rank cost, imbalance (max/mean, the quantity Canzona exists to reduce),
// distance from the lower bound, and the per-rank bytes of the (un)even RS/AG it implies.
#pragma once

#include <canzona/layout/zero1.hpp>

#include <cstdint>
#include <span>
#include <vector>

#include "canzona/plan/dp_partition.hpp"

namespace canzona::plan {

/// Quality of one plan over `ranks` ranks. Costs are in whatever unit they were given in.
struct PartitionMetrics {
  std::vector<double> rank_cost;  ///< Σ cost of what each rank steps
  double imbalance = 1;           ///< max / mean of rank_cost; 1 when every cost is zero
  /// max(Σ cost / ranks, largest single cost): no whole-tensor plan can have a smaller makespan.
  double lower_bound = 0;
  double makespan_over_lower_bound = 1;  ///< max rank_cost / lower_bound; 1 when it is zero
  /// Σ over buckets of the rank's slice length, in elements: what its RS-v / AG-v move (the
  /// straggler of the uneven collectives is the max). Empty for assignment_metrics.
  std::vector<std::int64_t> rank_slice_elements;
  std::int64_t max_slice_elements = 0;
};

/// max / mean of `loads`: the imbalance every plan metric reports; 1 when the total is zero (or
/// `loads` is empty).
double max_over_mean(std::span<const double> loads);

/// Metrics of a DP partition of `buffer` over dp ranks; costs has one value per entry (e.g.
/// entry_costs). An entry with owner -1 (cut apart by even_partition: stepped element-wise by
/// every rank holding a piece) contributes to each rank in proportion to the elements of it that
/// the rank's slice holds; the largest-item term of the lower bound still counts it whole.
/// Error when sizes disagree or dp != buffer.dp.
PartitionMetrics partition_metrics(const layout::Buffer& buffer, const DpPartition& partition,
                                   std::span<const double> costs, int dp);

/// The busiest rank's Σ cost under `partition` (partition_metrics' largest rank_cost): what the
/// DP planners minimise and the oracle proves bounds on.
double busiest_rank_cost(const layout::Buffer& buffer, const DpPartition& partition,
                         std::span<const double> costs);

/// Metrics of an owner-per-item plan (layer-wise baselines): owner[i] ∈ [0, ranks) steps item i
/// at cost costs[i]. No slices: rank_slice_elements stays empty. ConfigError when the sizes
/// disagree, ranks < 1 or an owner is out of range.
PartitionMetrics assignment_metrics(std::span<const int> owner, std::span<const double> costs,
                                    int ranks);

}  // namespace canzona::plan
