// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The alpha-beta collective model (see collective_model.hpp for the formulas and their sources).
#include "canzona/sim/collective_model.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace canzona::sim {
namespace {

int ceil_log2(int n) {
  int steps = 0;
  while ((1 << steps) < n) ++steps;
  return steps;
}

double bandwidth_gbps(const Topology& t, CollectiveClass kind, const GroupPlacement& p) {
  const double intra = t.intra_node.busbw_gbps[kind];
  if (!p.spans_nodes()) return intra;
  const CollectiveClass cap_class =
      kind == CollectiveClass::kAllReduce ? CollectiveClass::kReduceScatter : kind;
  return std::min(t.intra_node.busbw_gbps[cap_class],
                  p.min_ranks_per_node * t.inter_node.busbw_at(kind, p.nodes));
}

// Seconds for the bandwidth term of an all-to-all: the on-node and off-node shares travel over
// different links at the same time, so the slower share sets the time.
double all_to_all_transfer(const Topology& t, double bus_bytes, const GroupPlacement& p) {
  const double intra = t.intra_node.busbw_gbps[CollectiveClass::kAllToAll] * 1e9;
  if (!p.spans_nodes()) return bus_bytes / intra;
  const double peers = p.size - 1;
  const double on_node = (p.min_ranks_per_node - 1) / peers;
  const double inter = t.inter_node.busbw_gbps[CollectiveClass::kAllToAll] * 1e9;
  return std::max(bus_bytes * on_node / intra, bus_bytes * (1.0 - on_node) / inter);
}

double ring_latency_us(const Topology& t, CollectiveClass kind, const GroupPlacement& p) {
  const bool all_reduce = kind == CollectiveClass::kAllReduce;
  const int steps = (all_reduce ? 2 : 1) * (p.size - 1);
  const int inter = (all_reduce ? 2 : 1) * (p.nodes - 1);
  return t.intra_node.base_latency_us + (steps - inter) * t.intra_node.step_latency_us +
         inter * t.inter_node.step_latency_us;
}

}  // namespace

GroupPlacement place_group(const std::vector<int>& global_ranks, int gpus_per_node) {
  if (global_ranks.empty()) throw ConfigError("place_group: a group needs at least one rank");
  if (gpus_per_node < 1) {
    throw ConfigError(
        fmt::format("place_group: gpus_per_node must be >= 1, got {}", gpus_per_node));
  }
  std::map<int, int> per_node;
  for (const int r : global_ranks) {
    if (r < 0) throw ConfigError(fmt::format("place_group: negative rank {}", r));
    ++per_node[r / gpus_per_node];
  }
  GroupPlacement p;
  p.size = static_cast<int>(global_ranks.size());
  p.nodes = static_cast<int>(per_node.size());
  p.min_ranks_per_node = p.size;
  p.max_ranks_per_node = 0;
  for (const auto& [node, count] : per_node) {
    p.min_ranks_per_node = std::min(p.min_ranks_per_node, count);
    p.max_ranks_per_node = std::max(p.max_ranks_per_node, count);
  }
  return p;
}

double bus_factor(CollectiveClass kind, int ranks) {
  if (ranks <= 1) return 0.0;
  const double n = ranks;
  switch (kind) {
    case CollectiveClass::kAllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveClass::kReduceScatter:
    case CollectiveClass::kAllGather:
    case CollectiveClass::kAllToAll:
      return (n - 1) / n;
    case CollectiveClass::kBroadcast:
      break;
  }
  return 1.0;
}

CollectiveEstimate estimate_collective(const Topology& t, CollectiveClass kind, double bus_bytes,
                                       const GroupPlacement& p) {
  CollectiveEstimate e;
  if (p.size <= 1) {
    e.algorithm = "none";
    return e;
  }
  double latency_us = ring_latency_us(t, kind, p);
  e.algorithm = "ring";
  if (kind == CollectiveClass::kAllReduce && p.spans_nodes()) {
    const double tree_us = t.intra_node.base_latency_us +
                           2.0 * ((p.max_ranks_per_node - 1) * t.intra_node.step_latency_us +
                                  ceil_log2(p.nodes) * t.inter_node.step_latency_us);
    if (tree_us < latency_us) {
      latency_us = tree_us;
      e.algorithm = "tree";
    }
  }
  if ((kind == CollectiveClass::kReduceScatter || kind == CollectiveClass::kAllGather) &&
      p.max_ranks_per_node == 1) {
    const double pat_us =
        t.intra_node.base_latency_us + ceil_log2(p.size) * t.inter_node.step_latency_us;
    if (pat_us < latency_us) {
      latency_us = pat_us;
      e.algorithm = "pat";
    }
  }
  e.latency_seconds = latency_us * 1e-6;
  double transfer = 0;
  if (kind == CollectiveClass::kAllToAll) {
    transfer = all_to_all_transfer(t, bus_bytes, p);
    e.busbw_gbps = transfer > 0 ? bus_bytes / transfer / 1e9 : bandwidth_gbps(t, kind, p);
  } else {
    e.busbw_gbps = bandwidth_gbps(t, kind, p);
    transfer = bus_bytes / (e.busbw_gbps * 1e9);
  }
  e.seconds = e.latency_seconds + transfer;
  return e;
}

CollectiveClass collective_class_of(std::string_view op) {
  if (op == "all_reduce") return CollectiveClass::kAllReduce;
  if (op == "reduce_scatter") return CollectiveClass::kReduceScatter;
  if (op == "all_gather") return CollectiveClass::kAllGather;
  if (op == "all_to_all" || op == "gather" || op == "scatter") return CollectiveClass::kAllToAll;
  if (op == "broadcast" || op == "reduce") return CollectiveClass::kBroadcast;
  throw ConfigError(fmt::format(
      "collective '{}' has no cost class; expected all_reduce, reduce_scatter, all_gather, "
      "all_to_all, gather, scatter, broadcast or reduce",
      op));
}

}  // namespace canzona::sim
