// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The DP partitioners of a ZeRO-1 buffer (even, Eq.(1) static, alpha-balanced) and the
// atomicity check the executor runs on their output.
#include "canzona/plan/dp_partition.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
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

// argmin_{x ∈ cands, x >= floor} |target − x|, ties to the smaller x. `floor` is always one of
// the candidates (the previous cut). Restricting to x >= floor is what keeps the cuts monotone;
// the reference scan starts from 0 and can go backwards when target < floor / 2 (§3.3 note).
std::int64_t nearest_boundary(const std::vector<std::int64_t>& cands, double target,
                              std::int64_t floor) {
  const auto first = std::lower_bound(cands.begin(), cands.end(), floor);
  // First candidate strictly above target; everything in [first, above) is <= target.
  const auto above = std::upper_bound(first, cands.end(), target, [](double t, std::int64_t x) {
    return t < static_cast<double>(x);
  });
  if (above == first) {
    return *first;  // every admissible candidate exceeds the target: take the smallest
  }
  const std::int64_t below = *(above - 1);
  if (above == cands.end()) {
    return below;
  }
  const double down = target - static_cast<double>(below);
  const double up = static_cast<double>(*above) - target;
  return down <= up ? below : *above;
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
  std::vector<std::int64_t> last_end(ranks);
  for (const auto& bucket : buffer.buckets) {
    const std::int64_t s = shard_size(bucket, ranks);
    std::fill(last_end.begin(), last_end.end(), -1);
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      const auto& entry = buffer.entries[e];
      const auto r =
          static_cast<int>(std::min<std::int64_t>(ranks - 1, (entry.start - bucket.start) / s));
      plan.owner[e] = r;
      last_end[r] = entry.end;  // entries ascend, so the last one seen ends last
    }
    BucketCuts cuts;
    cuts.bucket = bucket.index;
    cuts.pos.resize(static_cast<std::size_t>(ranks) + 1);
    cuts.pos[0] = bucket.start;
    for (int r = 0; r + 1 < ranks; ++r) {
      // Owners ascend with the entries (their starts do), so last_end[r] >= pos[r]; an empty
      // rank repeats the previous cut.
      cuts.pos[r + 1] = last_end[r] >= 0 ? last_end[r] : cuts.pos[r];
    }
    cuts.pos[ranks] = bucket.end;
    plan.buckets.push_back(std::move(cuts));
  }
  return plan;
}

DpPartition alpha_greedy_partition(const layout::Buffer& buffer, double alpha) {
  if (!(alpha >= 0.0 && alpha <= 1.0)) {
    throw ConfigError(fmt::format(
        "alpha-balanced partition: alpha = {} is outside [0, 1] (0 = cuts closest to the even "
        "split, 1 = balance the element counts)",
        alpha));
  }
  check_buffer(buffer);
  const int ranks = buffer.dp;

  DpPartition plan;
  plan.method = "alpha_greedy";
  plan.owner.assign(buffer.entries.size(), -1);
  plan.buckets.resize(buffer.buckets.size());

  // "LPT over buckets": the biggest buckets are placed first, while every rank still has room.
  std::vector<std::size_t> order(buffer.buckets.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return buffer.buckets[a].size() > buffer.buckets[b].size();
  });

  std::int64_t total = 0;
  for (const auto& bucket : buffer.buckets) {
    total += bucket.size();
  }
  const double target = static_cast<double>(total) / ranks;
  std::vector<std::int64_t> load(ranks, 0);  // slice elements, padding included (as §3.3)
  std::vector<double> want(ranks);
  for (const std::size_t b : order) {
    const auto& bucket = buffer.buckets[b];
    const double size = static_cast<double>(bucket.size());
    const double even = size / ranks;
    double deficit_sum = 0;
    for (int r = 0; r < ranks; ++r) {
      deficit_sum += std::max(0.0, target - static_cast<double>(load[r]));
    }
    for (int r = 0; r < ranks; ++r) {
      const double deficit = std::max(0.0, target - static_cast<double>(load[r]));
      const double greedy = deficit_sum <= 1e-9 ? even : size * deficit / deficit_sum;
      want[r] = (1.0 - alpha) * even + alpha * greedy;
    }
    const std::vector<std::int64_t> cands = candidate_boundaries(buffer, bucket);
    std::vector<std::int64_t> rel(static_cast<std::size_t>(ranks) + 1);
    rel[0] = 0;
    rel[ranks] = bucket.size();
    double cumulative = 0;
    for (int r = 0; r + 1 < ranks; ++r) {
      // The cumulative want, not re-based on where the previous cut landed: a cut that
      // overshoots is compensated by the next one instead of accumulating drift.
      cumulative += want[r];
      rel[r + 1] = nearest_boundary(cands, cumulative, rel[r]);
      load[r] += rel[r + 1] - rel[r];
    }
    load[ranks - 1] += rel[ranks] - rel[ranks - 1];

    BucketCuts& cuts = plan.buckets[b];
    cuts.bucket = bucket.index;
    cuts.pos.resize(rel.size());
    for (std::size_t r = 0; r < rel.size(); ++r) {
      cuts.pos[r] = bucket.start + rel[r];
    }
    assign_owners(buffer, bucket, cuts.pos, plan.owner);
  }
  // Cuts are entry ends by construction; a violation here is a bug, never a fallback.
  check_partition(buffer, plan);
  return plan;
}

DpPartition alpha_balanced_partition(const layout::Buffer& buffer, double alpha,
                                     std::span<const double> costs) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(
        fmt::format("alpha-balanced partition of buffer '{}': {} costs for {} entries", buffer.name,
                    costs.size(), buffer.entries.size()));
  }
  DpPartition plan = alpha_greedy_partition(buffer, alpha);
  DpPartition fallback = static_partition(buffer);
  // Strictly better or nothing: on a tie the simpler Eq.(1) plan wins, as in the reference.
  if (owner_imbalance(plan, costs, buffer.dp) < owner_imbalance(fallback, costs, buffer.dp)) {
    plan.method = "alpha_balanced";
    return plan;
  }
  return fallback;
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
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  if (!(total > 0.0)) {
    return 1.0;
  }
  return *std::max_element(load.begin(), load.end()) / (total / ranks);
}

}  // namespace canzona::plan
