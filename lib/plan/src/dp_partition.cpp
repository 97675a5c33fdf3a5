// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The DP partitioners of a ZeRO-1 buffer (even, Eq.(1) static, alpha-balanced) and the
// atomicity check the executor runs on their output.
#include "canzona/plan/dp_partition.hpp"

#include "canzona/plan/cost.hpp"
#include "canzona/plan/metrics.hpp"
#include "partition_memo.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace canzona::plan {
namespace {

// R and S of a bucket; the layout guarantees S·R == size, a hand-built buffer might not.
std::int64_t shard_size(const layout::Bucket& bucket, int ranks) {
  CANZONA_CHECK(bucket.size() > 0 && bucket.size() % ranks == 0,
                fmt::format("bucket {} has size {}, not a positive multiple of dp = {}",
                            bucket.index, bucket.size(), ranks));
  return bucket.size() / ranks;
}

void check_buffer(const layout::Buffer& buffer) {
  CANZONA_CHECK(buffer.dp >= 1, fmt::format("buffer '{}' has dp = {}", buffer.name, buffer.dp));
  for (std::size_t b = 0; b < buffer.buckets.size(); ++b) {
    const auto& bucket = buffer.buckets[b];
    CANZONA_CHECK(bucket.index == static_cast<int>(b) && bucket.first_entry <= bucket.last_entry &&
                      bucket.last_entry < buffer.entries.size(),
                  fmt::format("buffer '{}': bucket {} is malformed", buffer.name, b));
  }
}

// Owner of every entry of a bucket from its cuts: the rank r with pos[r] <= start < pos[r+1].
// Entries are in buffer order, so a rank pointer that only moves forward finds them all.
void assign_owners(const layout::Buffer& buffer, const layout::Bucket& bucket,
                   const std::vector<std::int64_t>& pos, std::vector<int>& owner) {
  const int ranks = static_cast<int>(pos.size()) - 1;
  int r = 0;
  for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
    const std::int64_t start = buffer.entries[e].start;
    while (r < ranks - 1 && pos[r + 1] <= start) {
      ++r;
    }
    owner[e] = r;
  }
}

// The §3.3 candidate boundaries of a bucket, relative to its start: 0, every entry end, the
// bucket size. Entry ends ascend with the entries, so the result is sorted; duplicates (an
// entry ending exactly at the bucket end) are dropped.
std::vector<std::int64_t> candidate_boundaries(const layout::Buffer& buffer,
                                               const layout::Bucket& bucket) {
  std::vector<std::int64_t> cands;
  cands.reserve(bucket.num_entries() + 2);
  cands.push_back(0);
  for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
    cands.push_back(buffer.entries[e].end - bucket.start);
  }
  cands.push_back(bucket.size());
  cands.erase(std::unique(cands.begin(), cands.end()), cands.end());
  return cands;
}

// Index of argmin_{i >= floor} |target − coord[i]|, ties to the smaller index. `coord` is
// non-decreasing. Restricting to i >= floor (the previous cut) is what keeps the cuts monotone;
// the reference scan starts from 0 and can go backwards when target < floor / 2 (§3.3 note).
std::size_t nearest_boundary(const std::vector<double>& coord, double target, std::size_t floor) {
  const auto first = coord.begin() + static_cast<std::ptrdiff_t>(floor);
  // First candidate strictly above target; everything in [first, above) is <= target.
  const auto above = std::upper_bound(first, coord.end(), target);
  if (above == first) {
    return floor;  // every admissible candidate exceeds the target: take the smallest
  }
  // Among equal coordinates (zero-cost entries) the smallest boundary.
  const auto below = std::lower_bound(first, above, *(above - 1));
  const auto index = [&](auto it) { return static_cast<std::size_t>(it - coord.begin()); };
  if (above == coord.end()) {
    return index(below);
  }
  return target - *below <= *above - target ? index(below) : index(above);
}

// The coordinate the greedy measures a bucket in, at each candidate boundary: element offsets
// (padding included, the paper's unit), or the cumulative cost of the entries ending there.
std::vector<double> boundary_coordinates(const layout::Buffer& buffer, const layout::Bucket& bucket,
                                         const std::vector<std::int64_t>& cands,
                                         std::span<const double> weights) {
  std::vector<double> coord(cands.size());
  if (weights.empty()) {
    std::transform(cands.begin(), cands.end(), coord.begin(),
                   [](std::int64_t x) { return static_cast<double>(x); });
    return coord;
  }
  double running = 0;
  std::size_t e = bucket.first_entry;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    while (e <= bucket.last_entry && buffer.entries[e].end - bucket.start <= cands[i]) {
      running += weights[e++];
    }
    coord[i] = running;
  }
  return coord;
}

// The greedy of §3.3 in the given coordinate (see alpha_greedy_partition).
DpPartition greedy_partition(const layout::Buffer& buffer, double alpha,
                             std::span<const double> weights) {
  check_buffer(buffer);
  const int ranks = buffer.dp;

  DpPartition plan;
  plan.method = "alpha_greedy";
  plan.owner.assign(buffer.entries.size(), -1);
  plan.buckets.resize(buffer.buckets.size());

  std::vector<std::vector<std::int64_t>> cands(buffer.buckets.size());
  std::vector<std::vector<double>> coords(buffer.buckets.size());
  std::vector<double> bucket_size(buffer.buckets.size());
  for (std::size_t b = 0; b < buffer.buckets.size(); ++b) {
    cands[b] = candidate_boundaries(buffer, buffer.buckets[b]);
    coords[b] = boundary_coordinates(buffer, buffer.buckets[b], cands[b], weights);
    bucket_size[b] = coords[b].back();
  }
  const double total = std::accumulate(bucket_size.begin(), bucket_size.end(), 0.0);
  // "LPT over buckets": the biggest buckets are placed first, while every rank still has room.
  const std::vector<std::size_t> order = largest_first(bucket_size);

  const double target = total / ranks;
  // Every rank has reached the target when the deficits sum to (almost) nothing: 1e-9 elements,
  // or that fraction of the target in cost units.
  const double settled = weights.empty() ? 1e-9 : 1e-9 * target;
  std::vector<double> load(ranks, 0.0);
  std::vector<double> want(ranks);
  for (const std::size_t b : order) {
    const auto& bucket = buffer.buckets[b];
    const std::vector<double>& coord = coords[b];
    const double size = coord.back();
    const double even = size / ranks;
    double deficit_sum = 0;
    for (int r = 0; r < ranks; ++r) {
      deficit_sum += std::max(0.0, target - load[r]);
    }
    for (int r = 0; r < ranks; ++r) {
      const double deficit = std::max(0.0, target - load[r]);
      const double greedy = deficit_sum <= settled ? even : size * deficit / deficit_sum;
      want[r] = (1.0 - alpha) * even + alpha * greedy;
    }
    std::vector<std::size_t> cut(static_cast<std::size_t>(ranks) + 1);
    cut[0] = 0;
    cut[ranks] = coord.size() - 1;
    double cumulative = 0;
    for (int r = 0; r + 1 < ranks; ++r) {
      // The cumulative want, not re-based on where the previous cut landed: a cut that
      // overshoots is compensated by the next one instead of accumulating drift.
      cumulative += want[r];
      cut[r + 1] = nearest_boundary(coord, cumulative, cut[r]);
      load[r] += coord[cut[r + 1]] - coord[cut[r]];
    }
    load[ranks - 1] += coord[cut[ranks]] - coord[cut[ranks - 1]];

    BucketCuts& cuts = plan.buckets[b];
    cuts.bucket = bucket.index;
    cuts.pos.resize(cut.size());
    for (std::size_t r = 0; r < cut.size(); ++r) {
      cuts.pos[r] = bucket.start + cands[b][cut[r]];
    }
    assign_owners(buffer, bucket, cuts.pos, plan.owner);
  }
  // Cuts are entry ends by construction; a violation here is a bug, never a fallback.
  check_partition(buffer, plan);
  return plan;
}

void check_alpha(double alpha) {
  if (!(alpha >= 0.0 && alpha <= 1.0)) {
    throw ConfigError(fmt::format(
        "alpha-balanced partition: alpha = {} is outside [0, 1] (0 = cuts closest to the even "
        "split, 1 = fully balanced)",
        alpha));
  }
}

}  // namespace

bool BucketCuts::even() const {
  if (pos.size() < 2) {
    return true;
  }
  const std::int64_t first = pos[1] - pos[0];
  for (std::size_t r = 1; r + 1 < pos.size(); ++r) {
    if (pos[r + 1] - pos[r] != first) {
      return false;
    }
  }
  return true;
}

std::vector<std::size_t> BucketCuts::counts() const {
  std::vector<std::size_t> out(pos.size() - 1);
  for (std::size_t r = 0; r < out.size(); ++r) {
    out[r] = static_cast<std::size_t>(pos[r + 1] - pos[r]);
  }
  return out;
}

DpPartition even_partition(const layout::Buffer& buffer) {
  check_buffer(buffer);
  const int ranks = buffer.dp;
  DpPartition plan;
  plan.method = "even";
  plan.owner.assign(buffer.entries.size(), -1);
  for (const auto& bucket : buffer.buckets) {
    const std::int64_t s = shard_size(bucket, ranks);
    BucketCuts cuts;
    cuts.bucket = bucket.index;
    cuts.pos.resize(static_cast<std::size_t>(ranks) + 1);
    for (int r = 0; r <= ranks; ++r) {
      cuts.pos[r] = bucket.start + r * s;
    }
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      const auto& entry = buffer.entries[e];
      const auto r = static_cast<int>((entry.start - bucket.start) / s);
      plan.owner[e] = entry.end <= cuts.pos[r + 1] ? r : -1;
    }
    plan.buckets.push_back(std::move(cuts));
  }
  return plan;
}

DpPartition static_partition(const layout::Buffer& buffer) {
  check_buffer(buffer);
  const int ranks = buffer.dp;
  DpPartition plan;
  plan.method = "static";
  plan.owner.assign(buffer.entries.size(), -1);
  for (const auto& bucket : buffer.buckets) {
    const std::int64_t s = shard_size(bucket, ranks);
    // Owners ascend with the entries (their starts do), as cuts_from_owners requires.
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      plan.owner[e] = static_cast<int>(
          std::min<std::int64_t>(ranks - 1, (buffer.entries[e].start - bucket.start) / s));
    }
    plan.buckets.push_back(BucketCuts{bucket.index, cuts_from_owners(buffer, bucket, plan.owner)});
  }
  return plan;
}

DpPartition alpha_greedy_partition(const layout::Buffer& buffer, double alpha,
                                   std::span<const double> weights) {
  check_alpha(alpha);
  if (!weights.empty() && weights.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("alpha greedy of buffer '{}': {} weights for {} entries",
                                  buffer.name, weights.size(), buffer.entries.size()));
  }
  for (double w : weights) {
    if (!(w >= 0.0) || !std::isfinite(w)) {
      throw ConfigError(
          fmt::format("alpha greedy of buffer '{}': weight {} is not a finite "
                      "value >= 0",
                      buffer.name, w));
    }
  }
  return greedy_partition(buffer, alpha, weights);
}

namespace {

DpPartition plan_alpha_balanced(const layout::Buffer& buffer, double alpha,
                                std::span<const double> costs, BalanceUnit balance) {
  DpPartition plan = alpha_greedy_partition(buffer, alpha);
  double imbalance = owner_imbalance(plan, costs, buffer.dp);
  if (balance == BalanceUnit::kCost) {
    // The same greedy measured in the cost itself; keep whichever balances the cost better.
    DpPartition by_cost = alpha_greedy_partition(buffer, alpha, costs);
    const double by_cost_imbalance = owner_imbalance(by_cost, costs, buffer.dp);
    if (by_cost_imbalance < imbalance) {
      plan = std::move(by_cost);
      imbalance = by_cost_imbalance;
    }
  }
  if (balance == BalanceUnit::kCost && alpha == 1.0) {
    // Balance alone is asked for: improve the greedy's proposal, and an LPT-built one, by
    // refine_partition, and keep the best of all.
    std::array<DpPartition, 2> proposals = {
        refine_partition(buffer, plan, costs),
        refine_partition(buffer, ordered_lpt_partition(buffer, costs), costs)};
    for (DpPartition& refined : proposals) {
      const double refined_imbalance = owner_imbalance(refined, costs, buffer.dp);
      if (refined_imbalance < imbalance) {
        plan = std::move(refined);
        imbalance = refined_imbalance;
      }
    }
    // Then the search, which moves every rank's runs at once where the local moves stall.
    DpPartition searched = search_partition(buffer, plan, costs);
    if (const double searched_imbalance = owner_imbalance(searched, costs, buffer.dp);
        searched_imbalance < imbalance) {
      plan = std::move(searched);
      imbalance = searched_imbalance;
    }
  }
  DpPartition fallback = static_partition(buffer);
  // Strictly better or nothing: on a tie the simpler Eq.(1) plan wins, as in the reference.
  if (imbalance < owner_imbalance(fallback, costs, buffer.dp)) {
    plan.method = plan.method == "refined" || plan.method == "searched" ? "alpha_balanced_refined"
                                                                        : "alpha_balanced";
    return plan;
  }
  return fallback;
}

}  // namespace

DpPartition alpha_balanced_partition(const layout::Buffer& buffer, double alpha,
                                     std::span<const double> costs, BalanceUnit balance) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(
        fmt::format("alpha-balanced partition of buffer '{}': {} costs for {} entries", buffer.name,
                    costs.size(), buffer.entries.size()));
  }
  // A plan that throws (alpha outside [0, 1]) is not remembered.
  return detail::remembered_partition(buffer, alpha, costs, balance, [&] {
    return plan_alpha_balanced(buffer, alpha, costs, balance);
  });
}

void check_partition(const layout::Buffer& buffer, const DpPartition& partition) {
  const int ranks = buffer.dp;
  const auto where = [&](std::size_t b) {
    return fmt::format("partition '{}' of buffer '{}', bucket {}", partition.method, buffer.name,
                       b);
  };
  if (partition.buckets.size() != buffer.buckets.size()) {
    throw Error(fmt::format(
        "partition '{}' of buffer '{}' has cuts for {} buckets, the buffer has {}",
        partition.method, buffer.name, partition.buckets.size(), buffer.buckets.size()));
  }
  if (partition.owner.size() != buffer.entries.size()) {
    throw Error(fmt::format("partition '{}' of buffer '{}' has {} owners for {} entries",
                            partition.method, buffer.name, partition.owner.size(),
                            buffer.entries.size()));
  }
  for (std::size_t b = 0; b < buffer.buckets.size(); ++b) {
    const auto& bucket = buffer.buckets[b];
    const auto& pos = partition.buckets[b].pos;
    if (partition.buckets[b].bucket != bucket.index ||
        pos.size() != static_cast<std::size_t>(ranks) + 1) {
      throw Error(
          fmt::format("{}: cuts are for bucket {} with {} positions, expected {} for dp = {}",
                      where(b), partition.buckets[b].bucket, pos.size(), ranks + 1, ranks));
    }
    if (pos.front() != bucket.start || pos.back() != bucket.end) {
      throw Error(fmt::format("{}: cuts span [{}, {}) but the bucket is [{}, {})", where(b),
                              pos.front(), pos.back(), bucket.start, bucket.end));
    }
    for (int r = 0; r < ranks; ++r) {
      if (pos[r + 1] < pos[r]) {
        throw Error(fmt::format("{}: cut {} = {} is below cut {} = {}", where(b), r + 1, pos[r + 1],
                                r, pos[r]));
      }
    }
  }
  for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
    const auto& entry = buffer.entries[e];
    if (entry.bucket < 0 || static_cast<std::size_t>(entry.bucket) >= buffer.buckets.size()) {
      throw Error(fmt::format("buffer '{}': entry '{}' is in bucket {}, which does not exist",
                              buffer.name, entry.name, entry.bucket));
    }
    const auto b = static_cast<std::size_t>(entry.bucket);
    const auto& pos = partition.buckets[b].pos;
    // The first cut above the entry's start must not be below its end.
    const auto inside = std::upper_bound(pos.begin(), pos.end(), entry.start);
    if (inside != pos.end() && *inside < entry.end) {
      throw Error(
          fmt::format("{}: cut {} = {} falls inside entry '{}' [{}, {}): a matrix would be "
                      "split across DP ranks",
                      where(b), inside - pos.begin(), *inside, entry.name, entry.start, entry.end));
    }
    const int owner = partition.owner[e];
    if (owner < 0 || owner >= ranks || entry.start < pos[owner] || entry.end > pos[owner + 1]) {
      throw Error(
          fmt::format("{}: entry '{}' [{}, {}) is owned by rank {}, whose slice does not "
                      "hold it",
                      where(b), entry.name, entry.start, entry.end, owner));
    }
  }
}

double owner_imbalance(const DpPartition& partition, std::span<const double> costs, int ranks) {
  CANZONA_CHECK(costs.size() == partition.owner.size() && ranks >= 1,
                fmt::format("{} costs for {} owners over {} ranks", costs.size(),
                            partition.owner.size(), ranks));
  std::vector<double> load(ranks, 0.0);
  for (std::size_t e = 0; e < costs.size(); ++e) {
    const int r = partition.owner[e];
    if (r >= 0 && r < ranks) {
      load[r] += costs[e];
    }
  }
  return max_over_mean(load);
}

}  // namespace canzona::plan
