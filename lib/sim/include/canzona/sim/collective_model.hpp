// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Alpha-beta cost of one collective on a Topology: latency from NCCL's step model (ring, tree,
// PAT), bandwidth from nccl-tests' bus bandwidth, NVLink for groups inside a node and the NICs
// of the group's ranks for groups that span nodes.
#pragma once

#include "canzona/sim/topology.hpp"

#include <string_view>
#include <vector>

namespace canzona::sim {

/// Where a communicator's ranks sit on the cluster.
struct GroupPlacement {
  int size = 1;                ///< ranks in the group
  int nodes = 1;               ///< distinct nodes they occupy
  int min_ranks_per_node = 1;  ///< fewest group ranks on any of those nodes (the NIC bottleneck)
  int max_ranks_per_node = 1;
  bool spans_nodes() const { return nodes > 1; }
};

/// Placement of the group whose members have these global ranks, with rank r on node
/// r / gpus_per_node. ConfigError for an empty group, a negative rank or gpus_per_node < 1.
GroupPlacement place_group(const std::vector<int>& global_ranks, int gpus_per_node);

/// nccl-tests' bus-bandwidth factor: 2(n−1)/n for all-reduce, (n−1)/n for reduce-scatter,
/// all-gather and all-to-all, 1 for broadcast / reduce; 0 for a group of one.
double bus_factor(CollectiveClass kind, int ranks);

/// The model's answer for one collective.
struct CollectiveEstimate {
  double seconds = 0;          ///< latency + bus_bytes / busbw
  double latency_seconds = 0;  ///< the alpha part
  double busbw_gbps = 0;       ///< bus bandwidth applied (the slowest link's)
  std::string_view algorithm;  ///< "ring", "tree", "pat", "none" (group of one)
};

/// Time of a collective of class `kind` on a group placed as `placement`, moving `bus_bytes`
/// through the busiest rank (nccl-tests' S × bus_factor for even collectives; the largest
/// rank's share for uneven ones, see projector.hpp).
///
/// Bandwidth: a group inside one node runs at intra_node.busbw_gbps[kind]. A group spanning
/// nodes runs at min(NVLink cap, k × inter_node.busbw_gbps[kind]) with k = min_ranks_per_node
/// (each GPU drives its own NIC, rail-optimised); the NVLink cap of all-reduce is the ring
/// (reduce_scatter) rate, since NVLS's in-switch reduction only helps inside one node.
/// All-to-all splits its traffic into the on-node share (NVLink) and the off-node share (the
/// GPU's own NIC: NCCL cannot aggregate NICs for all-to-all) and takes the slower of the two.
///
/// Latency: base + steps·step latency, where a ring has 2(n−1) steps for all-reduce and n−1
/// otherwise, and the ring steps that cross nodes (2(nodes−1) for all-reduce, nodes−1
/// otherwise) cost the inter-node step latency. All-reduce takes the cheaper of ring and
/// NCCL's double binary tree (2·((k−1)·intra + ⌈log2 nodes⌉·inter) steps); reduce-scatter and
/// all-gather with one rank per node take the cheaper of ring and PAT (⌈log2 n⌉ inter-node
/// steps), as NCCL's tuner would. A group of one costs nothing.
CollectiveEstimate estimate_collective(const Topology& topology, CollectiveClass kind,
                                       double bus_bytes, const GroupPlacement& placement);

/// The class a plan / trace op name belongs to: "all_reduce", "reduce_scatter", "all_gather",
/// "all_to_all" | "gather" | "scatter" (point-to-point), "broadcast" | "reduce".
/// ConfigError for anything else (a barrier has no bandwidth term; the projector charges it the
/// intra-node base latency).
CollectiveClass collective_class_of(std::string_view op);

}  // namespace canzona::sim
