// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Refinement of a whole-tensor DP partition in cost units: block coordinate descent on the sum
// of squared rank loads, one bucket at a time, each bucket re-cut exactly.
#include "canzona/plan/dp_partition.hpp"

#include "canzona/plan/cost.hpp"
#include "canzona/plan/metrics.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace canzona::plan {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The cheapest way to deal a bucket's entries, in buffer order, to ranks in rank order (each
// rank a contiguous run, possibly empty) given the ranks' loads from every other bucket:
//     minimise Σ_r (base[r] + a_r)²,  a_r = Σ cost of the run rank r receives.
// A rank's run cost is g(P_i − P_j) with g convex and P the prefix sums, so the cost matrix is
// Monge and the best split point of each row moves right with i: the divide-and-conquer
// optimisation finds every row of the dynamic program in O(k log k), O(R·k log k) in all.
class BucketDealer {
 public:
  BucketDealer(std::span<const double> base, std::vector<double> prefix)
      : base_(base),
        prefix_(std::move(prefix)),
        items_(prefix_.size() - 1),
        split_(base.size() * (items_ + 1), 0) {}

  // Owner (rank) of every item.
  std::vector<int> deal() {
    const int ranks = static_cast<int>(base_.size());
    std::vector<double> previous(items_ + 1, kInfinity);
    previous[0] = 0;
    std::vector<double> current(items_ + 1);
    for (int r = 0; r < ranks; ++r) {
      solve_row(r, previous, current, 0, items_, 0, items_);
      std::swap(previous, current);
    }
    std::vector<int> owner(items_);
    std::size_t i = items_;
    for (int r = ranks - 1; r >= 0; --r) {
      const std::size_t j = split(r, i);
      for (std::size_t item = j; item < i; ++item) {
        owner[item] = r;
      }
      i = j;
    }
    return owner;
  }

 private:
  double run_cost(int r, std::size_t j, std::size_t i) const {
    const double load = base_[r] + (prefix_[i] - prefix_[j]);
    return load * load;
  }

  // current[i] for i in [lo, hi], knowing the best split lies in [split_lo, split_hi].
  void solve_row(int r, const std::vector<double>& previous, std::vector<double>& current,
                 std::size_t lo, std::size_t hi, std::size_t split_lo, std::size_t split_hi) {
    if (lo > hi) {
      return;
    }
    const std::size_t mid = lo + (hi - lo) / 2;
    double best = kInfinity;
    std::size_t best_j = split_lo;
    for (std::size_t j = split_lo; j <= std::min(mid, split_hi); ++j) {
      const double value = previous[j] + run_cost(r, j, mid);
      if (value < best) {  // strict: ties keep the smaller split, deterministically
        best = value;
        best_j = j;
      }
    }
    current[mid] = best;
    split(r, mid) = best_j;
    if (mid > lo) {
      solve_row(r, previous, current, lo, mid - 1, split_lo, best_j);
    }
    solve_row(r, previous, current, mid + 1, hi, best_j, split_hi);
  }

  std::span<const double> base_;
  std::vector<double> prefix_;
  std::size_t items_;
  // split(r, i): where rank r's run starts when ranks <= r hold the first i items.
  std::size_t& split(int r, std::size_t i) {
    return split_[static_cast<std::size_t>(r) * (items_ + 1) + i];
  }
  std::vector<std::size_t> split_;
};

double sum_of_squares(const std::vector<double>& load) {
  return std::inner_product(load.begin(), load.end(), load.begin(), 0.0);
}

// The state refine_partition works on: the partition, rank loads in units of the mean load
// (squares near 1 whatever the cost unit), and the two kinds of move.
class Refiner {
 public:
  Refiner(const layout::Buffer& buffer, std::span<const double> costs, DpPartition& plan)
      : buffer_(buffer), plan_(plan), cost_(costs.size()), load_(buffer.dp, 0.0) {
    const double unit =
        static_cast<double>(buffer.dp) / std::accumulate(costs.begin(), costs.end(), 0.0);
    std::vector<double> bucket_cost(buffer.buckets.size(), 0.0);
    for (std::size_t e = 0; e < costs.size(); ++e) {
      cost_[e] = costs[e] * unit;
      load_[plan.owner[e]] += cost_[e];
      bucket_cost[static_cast<std::size_t>(buffer.entries[e].bucket)] += cost_[e];
    }
    order_ = largest_first(bucket_cost);  // the biggest buckets move first, as in the greedy
  }

  // Re-deals every bucket optimally given the others until a pass no longer lowers Σ load².
  void descend_squares(int max_passes) {
    double potential = sum_of_squares(load_);
    for (int pass = 0; pass < max_passes; ++pass) {
      for (const std::size_t b : order_) {
        redeal(buffer_.buckets[b]);
      }
      const double next = sum_of_squares(load_);
      const bool settled = next >= potential * (1.0 - 1e-12);
      potential = next;
      if (settled) {
        break;
      }
    }
  }

  // One ejection chain from the busiest rank A: A hands an entry x to rank B, and B hands an
  // entry y of another bucket to rank C (C may be A itself: an exchange), each move keeping its
  // bucket's owners monotone and every rank involved ending below A's old load. Re-dealing one
  // bucket at a time cannot find these: the first move alone raises B above A. The chain with
  // the lowest new maximum among the ranks involved is applied. Every applied chain lowers the
  // descending-sorted load vector lexicographically, so repeated chains end.
  bool eject_from_busiest() {
    const int a = static_cast<int>(std::max_element(load_.begin(), load_.end()) - load_.begin());
    std::vector<std::vector<std::size_t>> owned(load_.size());
    for (std::size_t e = 0; e < plan_.owner.size(); ++e) {
      owned[plan_.owner[e]].push_back(e);
    }
    double best = load_[a];
    std::size_t best_x = 0, best_y = 0;
    int best_b = -1, best_c = -1;
    for (const std::size_t x : owned[a]) {
      const auto [x_lo, x_hi] = destinations(x);
      for (int b = x_lo; b <= x_hi; ++b) {
        if (b == a) continue;
        const double b_load = load_[b] + cost_[x];
        if (b_load < best) {  // B can keep x: a single move
          best = std::max(load_[a] - cost_[x], b_load);
          best_x = x;
          best_b = b;
          best_c = -1;
        }
        for (const std::size_t y : owned[b]) {
          if (buffer_.entries[y].bucket == buffer_.entries[x].bucket) continue;
          const double b_after = b_load - cost_[y];
          if (b_after >= best) continue;
          const auto [y_lo, y_hi] = destinations(y);
          for (int c = y_lo; c <= y_hi; ++c) {
            if (c == b) continue;
            const double a_after = load_[a] - cost_[x] + (c == a ? cost_[y] : 0.0);
            const double c_after = c == a ? a_after : load_[c] + cost_[y];
            const double worst = std::max({a_after, b_after, c_after});
            if (worst < best) {
              best = worst;
              best_x = x;
              best_y = y;
              best_b = b;
              best_c = c;
            }
          }
        }
      }
    }
    if (best_b < 0) {
      return false;
    }
    if (best_c >= 0) {
      move(best_y, best_c);  // y leaves first: x's move cannot change y's run (other bucket)
    }
    move(best_x, best_b);
    return true;
  }

 private:
  void redeal(const layout::Bucket& bucket) {
    std::vector<double> prefix{0.0};
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      load_[plan_.owner[e]] -= cost_[e];
      prefix.push_back(prefix.back() + cost_[e]);
    }
    const std::vector<int> dealt = BucketDealer(load_, std::move(prefix)).deal();
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      plan_.owner[e] = dealt[e - bucket.first_entry];
      load_[plan_.owner[e]] += cost_[e];
    }
    plan_.buckets[static_cast<std::size_t>(bucket.index)].pos =
        cuts_from_owners(buffer_, bucket, plan_.owner);
  }

  // The ranks entry e may move to alone: only an entry at an end of its owner's run in the
  // bucket can leave it, towards the owner of its neighbour on that side (ranks in between own
  // nothing in this bucket). Its own owner when it cannot move.
  std::pair<int, int> destinations(std::size_t e) const {
    const auto& bucket = buffer_.buckets[static_cast<std::size_t>(buffer_.entries[e].bucket)];
    const int owner = plan_.owner[e];
    const bool first = e == bucket.first_entry || plan_.owner[e - 1] != owner;
    const bool last = e == bucket.last_entry || plan_.owner[e + 1] != owner;
    const int lo = !first ? owner : (e == bucket.first_entry ? 0 : plan_.owner[e - 1]);
    const int hi =
        !last ? owner
              : (e == bucket.last_entry ? static_cast<int>(load_.size()) - 1 : plan_.owner[e + 1]);
    return {lo, hi};
  }

  void move(std::size_t e, int to) {
    load_[plan_.owner[e]] -= cost_[e];
    load_[to] += cost_[e];
    plan_.owner[e] = to;
    const auto b = static_cast<std::size_t>(buffer_.entries[e].bucket);
    plan_.buckets[b].pos = cuts_from_owners(buffer_, buffer_.buckets[b], plan_.owner);
  }

  const layout::Buffer& buffer_;
  DpPartition& plan_;
  std::vector<double> cost_;
  std::vector<double> load_;
  std::vector<std::size_t> order_;
};

}  // namespace

std::vector<int> deal_minimising_squares(std::span<const double> base,
                                         std::span<const double> costs) {
  CANZONA_CHECK(!base.empty(), "dealing a bucket needs at least one rank");
  std::vector<double> prefix{0.0};
  for (const double c : costs) prefix.push_back(prefix.back() + c);
  return BucketDealer(base, std::move(prefix)).deal();
}

DpPartition ordered_lpt_partition(const layout::Buffer& buffer, std::span<const double> costs) {
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("ordered LPT partition of buffer '{}': {} costs for {} entries",
                                  buffer.name, costs.size(), buffer.entries.size()));
  }
  const int ranks = buffer.dp;
  DpPartition plan;
  plan.method = "ordered_lpt";
  plan.owner.assign(buffer.entries.size(), -1);
  std::vector<double> load(ranks, 0.0);
  for (const std::size_t e : largest_first(costs)) {
    const auto& bucket = buffer.buckets[static_cast<std::size_t>(buffer.entries[e].bucket)];
    // The nearest placed neighbours in the bucket bound the ranks that keep it monotone.
    std::size_t before = e;
    while (before > bucket.first_entry && plan.owner[before - 1] < 0) --before;
    std::size_t after = e;
    while (after < bucket.last_entry && plan.owner[after + 1] < 0) ++after;
    const int lo = before > bucket.first_entry ? plan.owner[before - 1] : 0;
    const int hi = after < bucket.last_entry ? plan.owner[after + 1] : ranks - 1;
    // Where the entry sits between them: among equally loaded ranks, the one at the same
    // relative position leaves room on both sides for the entries still to come.
    const double fraction =
        static_cast<double>(e - before + 1) / static_cast<double>(after - before + 2);
    const double preferred = lo + fraction * (hi - lo);
    int best = lo;
    for (int r = lo; r <= hi; ++r) {
      if (load[r] < load[best] ||
          (load[r] == load[best] && std::abs(r - preferred) < std::abs(best - preferred))) {
        best = r;
      }
    }
    plan.owner[e] = best;
    load[best] += costs[e];
  }
  for (const auto& bucket : buffer.buckets) {
    plan.buckets.push_back(BucketCuts{bucket.index, cuts_from_owners(buffer, bucket, plan.owner)});
  }
  check_partition(buffer, plan);
  return plan;
}

std::vector<std::int64_t> cuts_from_owners(const layout::Buffer& buffer,
                                           const layout::Bucket& bucket,
                                           std::span<const int> owner) {
  const int ranks = buffer.dp;
  std::vector<std::int64_t> last_end(ranks, -1);
  for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
    const int r = owner[e];
    CANZONA_CHECK(r >= 0 && r < ranks && (e == bucket.first_entry || owner[e - 1] <= r),
                  fmt::format("buffer '{}', bucket {}: owners must be ranks in [0, {}) that never "
                              "decrease along the bucket",
                              buffer.name, bucket.index, ranks));
    last_end[r] = buffer.entries[e].end;  // entries ascend, so the last one seen ends last
  }
  std::vector<std::int64_t> pos(static_cast<std::size_t>(ranks) + 1);
  pos[0] = bucket.start;
  for (int r = 0; r + 1 < ranks; ++r) {
    pos[r + 1] = last_end[r] >= 0 ? last_end[r] : pos[r];  // an empty rank repeats the cut
  }
  pos[ranks] = bucket.end;
  return pos;
}

DpPartition refine_partition(const layout::Buffer& buffer, const DpPartition& start,
                             std::span<const double> costs, int max_passes) {
  check_partition(buffer, start);
  if (costs.size() != buffer.entries.size()) {
    throw ConfigError(fmt::format("refining the partition of buffer '{}': {} costs for {} entries",
                                  buffer.name, costs.size(), buffer.entries.size()));
  }
  DpPartition plan = start;
  plan.method = "refined";
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  if (!(total > 0) || buffer.dp == 1) {
    return plan;
  }
  Refiner refiner(buffer, costs, plan);
  // Judged on the caller's costs, as owner_imbalance sees them: the refiner's scaled loads round
  // differently, and "better" must mean better in the metric the plan is accepted by.
  DpPartition best = plan;
  double best_imbalance = owner_imbalance(plan, costs, buffer.dp);
  const auto keep_if_better = [&] {
    const double imbalance = owner_imbalance(plan, costs, buffer.dp);
    if (imbalance < best_imbalance) {
      best = plan;
      best_imbalance = imbalance;
    }
  };
  // Squares first; where they stall, ejection chains across buckets that lower the maximum;
  // the best maximum seen is the result.
  for (int round = 0; round < max_passes; ++round) {
    refiner.descend_squares(max_passes);
    keep_if_better();
    if (!refiner.eject_from_busiest()) {
      break;
    }
    // Each chain lowers the descending-sorted loads lexicographically; the cap only bounds time.
    for (std::size_t chain = 0; chain < buffer.entries.size() && refiner.eject_from_busiest();
         ++chain) {
    }
    keep_if_better();
  }
  check_partition(buffer, best);
  return best;
}

}  // namespace canzona::plan
