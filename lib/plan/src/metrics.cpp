// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Plan metrics: per-rank cost, imbalance, lower bound, slice elements.
#include "canzona/plan/metrics.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace canzona::plan {
namespace {

// Fills the cost-derived fields from rank_cost and the largest single item.
void finish(PartitionMetrics& m, double largest_item) {
  const auto ranks = static_cast<double>(m.rank_cost.size());
  const double total = std::accumulate(m.rank_cost.begin(), m.rank_cost.end(), 0.0);
  const double makespan =
      m.rank_cost.empty() ? 0.0 : *std::max_element(m.rank_cost.begin(), m.rank_cost.end());
  m.imbalance = max_over_mean(m.rank_cost);
  m.lower_bound = std::max(total / ranks, largest_item);
  m.makespan_over_lower_bound = m.lower_bound > 0.0 ? makespan / m.lower_bound : 1.0;
}

}  // namespace

double max_over_mean(std::span<const double> loads) {
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  if (!(total > 0.0)) return 1.0;
  return *std::max_element(loads.begin(), loads.end()) /
         (total / static_cast<double>(loads.size()));
}

PartitionMetrics partition_metrics(const layout::Buffer& buffer, const DpPartition& partition,
                                   std::span<const double> costs, int dp) {
  CANZONA_CHECK(dp == buffer.dp && dp >= 1,
                fmt::format("metrics for dp = {} of buffer '{}' built for dp = {}", dp, buffer.name,
                            buffer.dp));
  CANZONA_CHECK(
      costs.size() == buffer.entries.size() && partition.owner.size() == buffer.entries.size() &&
          partition.buckets.size() == buffer.buckets.size(),
      fmt::format("buffer '{}': {} entries, {} costs, {} owners, {} buckets of cuts for {}",
                  buffer.name, buffer.entries.size(), costs.size(), partition.owner.size(),
                  partition.buckets.size(), buffer.buckets.size()));
  PartitionMetrics m;
  m.rank_cost.assign(dp, 0.0);
  m.rank_slice_elements.assign(dp, 0);
  for (const auto& cuts : partition.buckets) {
    CANZONA_CHECK(
        cuts.pos.size() == static_cast<std::size_t>(dp) + 1,
        fmt::format("bucket {} has {} cuts for dp = {}", cuts.bucket, cuts.pos.size(), dp));
    for (int r = 0; r < dp; ++r) {
      m.rank_slice_elements[r] += cuts.slice(r);
    }
  }
  m.max_slice_elements =
      *std::max_element(m.rank_slice_elements.begin(), m.rank_slice_elements.end());

  double largest = 0;
  for (std::size_t e = 0; e < costs.size(); ++e) {
    largest = std::max(largest, costs[e]);
    const int owner = partition.owner[e];
    if (owner >= 0) {
      CANZONA_CHECK(owner < dp, fmt::format("entry {} owned by rank {} of {}", e, owner, dp));
      m.rank_cost[owner] += costs[e];
      continue;
    }
    // A cut entry: each rank holding a piece steps that piece (element-wise optimizers only).
    const auto& entry = buffer.entries[e];
    const auto& pos = partition.buckets[static_cast<std::size_t>(entry.bucket)].pos;
    const auto numel = static_cast<double>(entry.numel());
    for (int r = 0; r < dp && numel > 0; ++r) {
      const std::int64_t piece = std::min(entry.end, pos[r + 1]) - std::max(entry.start, pos[r]);
      if (piece > 0) {
        m.rank_cost[r] += costs[e] * static_cast<double>(piece) / numel;
      }
    }
  }
  finish(m, largest);
  return m;
}

PartitionMetrics assignment_metrics(std::span<const int> owner, std::span<const double> costs,
                                    int ranks) {
  if (ranks < 1 || owner.size() != costs.size()) {
    throw ConfigError(
        fmt::format("assignment metrics: {} owners, {} costs, {} ranks (need equal "
                    "counts and ranks >= 1)",
                    owner.size(), costs.size(), ranks));
  }
  PartitionMetrics m;
  m.rank_cost.assign(ranks, 0.0);
  double largest = 0;
  for (std::size_t i = 0; i < owner.size(); ++i) {
    if (owner[i] < 0 || owner[i] >= ranks) {
      throw ConfigError(fmt::format(
          "assignment metrics: item {} is owned by rank {}, outside [0, {})", i, owner[i], ranks));
    }
    m.rank_cost[owner[i]] += costs[i];
    largest = std::max(largest, costs[i]);
  }
  finish(m, largest);
  return m;
}

double busiest_rank_cost(const layout::Buffer& buffer, const DpPartition& partition,
                         std::span<const double> costs) {
  const PartitionMetrics metrics = partition_metrics(buffer, partition, costs, buffer.dp);
  return *std::max_element(metrics.rank_cost.begin(), metrics.rank_cost.end());
}

}  // namespace canzona::plan
