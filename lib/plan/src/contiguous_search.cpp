// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// contiguous_fits: the exact decision behind the planner's last refinement and the oracle's
// proven bound.
#include "contiguous_search.hpp"

#include "ranks_needed.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>
#include <utility>

namespace canzona::plan::detail {
namespace {

// Loads are sums of the same doubles in different orders: equal within this relative distance.
constexpr double kLoadTolerance = 1e-9;
// How often the clock is read, in visited nodes.
constexpr long long kClockEvery = 4096;
// The most runs one rank's choice list holds; beyond it a failure is no longer a proof.
constexpr std::size_t kMostChoices = 4096;

struct KeyHash {
  std::size_t operator()(const std::vector<int>& key) const {
    std::size_t h = 1469598103934665603ULL;
    for (const int k : key) h = (h ^ static_cast<std::size_t>(k)) * 1099511628211ULL;
    return h;
  }
};

// Per bucket and position, a number naming the sequence of costs from that position to the
// bucket's end: equal numbers, equal sequences (costs compared exactly). What ranks r.. can
// still do depends only on the multiset of these sequences, not on which bucket holds which.
std::vector<std::vector<int>> suffix_ids(const std::vector<std::vector<double>>& costs) {
  std::map<std::pair<double, int>, int> id_of;  // (first cost, rest's id) -> id; 0: empty
  std::vector<std::vector<int>> ids(costs.size());
  for (std::size_t b = 0; b < costs.size(); ++b) {
    ids[b].assign(costs[b].size() + 1, 0);
    for (std::size_t p = costs[b].size(); p-- > 0;) {
      const auto [it, inserted] =
          id_of.try_emplace({costs[b][p], ids[b][p + 1]}, static_cast<int>(id_of.size()) + 1);
      ids[b][p] = it->second;
    }
  }
  return ids;
}

class Search {
 public:
  Search(const std::vector<std::vector<double>>& costs, int ranks, double capacity,
         const SearchLimits& limits, SearchOrder order)
      : costs_(costs),
        order_(order),
        ranks_(ranks),
        capacity_(capacity * (1 + kLoadTolerance)),
        limits_(limits),
        needed_(costs, capacity),
        prefix_(costs.size()),
        suffix_id_(suffix_ids(costs)),
        position_(costs.size(), 0),
        start_(static_cast<std::size_t>(ranks), std::vector<int>(costs.size(), 0)),
        twin_before_(static_cast<std::size_t>(ranks), std::vector<int>(costs.size(), -1)),
        key_(costs.size(), 0),
        taken_(static_cast<std::size_t>(ranks), std::vector<int>(costs.size(), 0)) {
    int most_id = 0;
    for (const auto& ids : suffix_id_)
      most_id = std::max(most_id, *std::max_element(ids.begin(), ids.end()));
    last_with_.assign(static_cast<std::size_t>(most_id) + 1, -1);
    for (std::size_t b = 0; b < costs.size(); ++b) {
      prefix_[b].assign(costs[b].size() + 1, 0.0);
      std::partial_sum(costs[b].begin(), costs[b].end(), prefix_[b].begin() + 1);
      remaining_ += prefix_[b].back();
    }
  }

  ContiguousAnswer run() {
    ContiguousAnswer answer;
    const bool found = rank(0);
    answer.nodes = nodes_;
    if (found) {
      answer.kind = ContiguousAnswer::Kind::kFits;
      answer.owner.resize(costs_.size());
      for (std::size_t b = 0; b < costs_.size(); ++b) {
        answer.owner[b].assign(costs_[b].size(), ranks_ - 1);
        std::size_t item = 0;
        for (int r = 0; r < ranks_; ++r) {
          for (int k = 0; k < taken_[static_cast<std::size_t>(r)][b]; ++k) {
            answer.owner[b][item++] = r;
          }
        }
      }
    } else {
      answer.kind = timed_out_ || truncated_ > 0 ? ContiguousAnswer::Kind::kUnknown
                                                 : ContiguousAnswer::Kind::kDoesNotFit;
    }
    return answer;
  }

 private:
  double run_cost(std::size_t b, int from, int to) const {
    return prefix_[b][to] - prefix_[b][from];
  }

  // Items left whose cost is above half the capacity: no two share a rank.
  int big_items_left() const {
    int big = 0;
    for (std::size_t b = 0; b < costs_.size(); ++b) {
      for (std::size_t i = static_cast<std::size_t>(position_[b]); i < costs_[b].size(); ++i) {
        if (costs_[b][i] * 2 > capacity_) ++big;
      }
    }
    return big;
  }

  bool out_of_time() {
    if (timed_out_) return true;
    ++nodes_;
    if (nodes_ >= limits_.nodes ||
        (nodes_ % kClockEvery == 0 && std::chrono::steady_clock::now() > limits_.deadline)) {
      timed_out_ = true;
    }
    return timed_out_;
  }

  // Ranks r.. take what is left; true when they can.
  bool rank(int r) {
    if (remaining_ <= capacity_ * kLoadTolerance) return true;
    const int ranks_left = ranks_ - r;
    if (ranks_left == 0 || remaining_ > ranks_left * capacity_) return false;
    // What is left, as a multiset, needs more ranks than there are: the configuration LP's count
    // where it applies (it counts the items above half the capacity too), else those items alone.
    if (needed_.active() ? needed_.at_least(position_) > ranks_left
                         : big_items_left() > ranks_left) {
      return false;
    }
    const auto failed = failed_.find(state_key());
    if (failed != failed_.end() && r >= failed->second) return false;
    find_twins(r);
    const double at_least = remaining_ - (ranks_left - 1) * capacity_;
    if (order_ == SearchOrder::kBucketByBucket) {
      if (take(r, 0, 0.0, at_least)) return true;
      if (!timed_out_) remember_failure(r);
      return false;
    }
    // Every run rank r may take, fullest first: a full rank leaves the least behind.
    Choices choices;
    const std::vector<int>& from = start_[static_cast<std::size_t>(r)];
    const long long truncated_before = truncated_;
    collect(r, 0, 0.0, at_least, choices);
    position_ = from;
    if (timed_out_) return false;
    std::vector<std::size_t> order(choices.load.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return choices.load[x] > choices.load[y];
    });
    const std::size_t buckets = costs_.size();
    for (const std::size_t c : order) {
      for (std::size_t bucket = 0; bucket < buckets; ++bucket) {
        position_[bucket] = choices.to[c * buckets + bucket];
        taken_[static_cast<std::size_t>(r)][bucket] = position_[bucket] - from[bucket];
      }
      remaining_ -= choices.load[c];
      const bool done = rank(r + 1);
      remaining_ += choices.load[c];
      if (done) return true;
      position_ = from;
      if (timed_out_ || out_of_time()) return false;
    }
    std::fill(taken_[static_cast<std::size_t>(r)].begin(),
              taken_[static_cast<std::size_t>(r)].end(), 0);
    // A failure below a truncated choice list proves nothing.
    if (truncated_ == truncated_before) remember_failure(r);
    return false;
  }

  void remember_failure(int r) {
    auto [it, inserted] = failed_.try_emplace(state_key(), r);
    if (!inserted) it->second = std::min(it->second, r);
  }

  // Rank r chooses its run in buckets b.. having loaded `load` from the buckets before b,
  // bucket by bucket, the longest run first.
  bool take(int r, std::size_t b, double load, double at_least) {
    if (out_of_time()) return false;
    if (b == costs_.size()) {
      if (load < at_least * (1 - kLoadTolerance) || !maximal(load)) return false;
      remaining_ -= load;
      const bool done = rank(r + 1);
      remaining_ += load;
      return done;
    }
    const int from = position_[b];
    for (int to = most_for_twin(r, b, most_that_fits(b, load)); to >= from; --to) {
      const double next = load + run_cost(b, from, to);
      if (next + reachable_after(b, next) < at_least * (1 - kLoadTolerance)) break;
      position_[b] = to;
      taken_[static_cast<std::size_t>(r)][b] = to - from;
      const bool done = take(r, b + 1, next, at_least);
      position_[b] = from;
      if (done) return true;
      taken_[static_cast<std::size_t>(r)][b] = 0;
      if (timed_out_) return false;
    }
    return false;
  }

  // The furthest position of bucket b a run from its current position can reach on top of
  // `load`.
  int most_that_fits(std::size_t b, double load) const {
    const int from = position_[b];
    int most = from;
    while (most < static_cast<int>(costs_[b].size()) &&
           load + run_cost(b, from, most + 1) <= capacity_) {
      ++most;
    }
    return most;
  }

  // The runs one rank may take: per choice, the new position in every bucket, and its load.
  struct Choices {
    std::vector<int> to;  // choice-major, one per bucket
    std::vector<double> load;
  };

  // The choices of buckets b.. on top of `load` from the buckets before b: loads in
  // [at_least, capacity] after which no further item of any bucket fits.
  void collect(int r, std::size_t b, double load, double at_least, Choices& out) {
    if (out_of_time()) return;
    if (b == costs_.size()) {
      if (load < at_least * (1 - kLoadTolerance) || !maximal(load)) return;
      if (out.load.size() == kMostChoices) {
        ++truncated_;
        return;
      }
      out.to.insert(out.to.end(), position_.begin(), position_.end());
      out.load.push_back(load);
      return;
    }
    const int from = position_[b];
    for (int to = most_for_twin(r, b, most_that_fits(b, load)); to >= from; --to) {
      const double next = load + run_cost(b, from, to);
      if (next + reachable_after(b, next) < at_least * (1 - kLoadTolerance)) break;
      position_[b] = to;
      collect(r, b + 1, next, at_least, out);
      position_[b] = from;
      if (timed_out_) return;
    }
  }

  // The memo's key: the sorted names of what is left of every bucket.
  const std::vector<int>& state_key() {
    for (std::size_t b = 0; b < costs_.size(); ++b) {
      key_[b] = suffix_id_[b][static_cast<std::size_t>(position_[b])];
    }
    std::sort(key_.begin(), key_.end());
    return key_;
  }

  // At rank r's start: each bucket's nearest earlier bucket holding the same sequence (its twin),
  // or -1. Two twins are interchangeable, so the rank's choices keep the earlier twin's run at
  // least as long as the later one's: the mirror image of every other choice leaves the same
  // multiset behind. One row per rank, so that nothing is saved and restored around the ranks
  // after it.
  void find_twins(int r) {
    const auto row = static_cast<std::size_t>(r);
    start_[row] = position_;
    for (std::size_t b = 0; b < costs_.size(); ++b) {
      const int id = suffix_id_[b][static_cast<std::size_t>(position_[b])];
      twin_before_[row][b] = id == 0 ? -1 : last_with_[static_cast<std::size_t>(id)];
      last_with_[static_cast<std::size_t>(id)] = static_cast<int>(b);
    }
    for (std::size_t b = 0; b < costs_.size(); ++b) {
      last_with_[static_cast<std::size_t>(suffix_id_[b][static_cast<std::size_t>(position_[b])])] =
          -1;
    }
  }

  // `most` capped so that bucket b's run is no longer than its twin's in rank r's choice.
  int most_for_twin(int r, std::size_t b, int most) const {
    const auto row = static_cast<std::size_t>(r);
    const int twin = twin_before_[row][b];
    if (twin < 0) return most;
    const auto t = static_cast<std::size_t>(twin);
    return std::min(most, position_[b] + (position_[t] - start_[row][t]));
  }

  // An upper estimate of what buckets after b can add to a rank already at `load`.
  double reachable_after(std::size_t b, double load) const {
    double more = 0;
    for (std::size_t c = b + 1; c < costs_.size(); ++c) {
      more += prefix_[c].back() - prefix_[c][static_cast<std::size_t>(position_[c])];
      if (load + more > capacity_) return capacity_ - load;
    }
    return more;
  }

  // No bucket's next item fits on top of `load`.
  bool maximal(double load) const {
    for (std::size_t b = 0; b < costs_.size(); ++b) {
      const auto p = static_cast<std::size_t>(position_[b]);
      if (p < costs_[b].size() && load + costs_[b][p] <= capacity_) return false;
    }
    return true;
  }

  const std::vector<std::vector<double>>& costs_;
  SearchOrder order_;
  int ranks_;
  double capacity_;
  SearchLimits limits_;
  RanksNeeded needed_;
  std::vector<std::vector<double>> prefix_;
  std::vector<std::vector<int>> suffix_id_;
  std::vector<int> position_;
  std::vector<std::vector<int>> start_;        // per rank: the positions at its start
  std::vector<std::vector<int>> twin_before_;  // per rank and bucket: its twin then, or -1
  std::vector<int> last_with_;                 // find_twins's scratch, per suffix id
  std::vector<int> key_;                       // state_key's buffer
  std::vector<std::vector<int>> taken_;        // per rank, per bucket: items taken
  double remaining_ = 0;
  long long nodes_ = 0;
  bool timed_out_ = false;
  long long truncated_ = 0;  // choice lists cut at kMostChoices
  // States (state_key) from which the ranks from `second` on were shown unable to finish.
  std::unordered_map<std::vector<int>, int, KeyHash> failed_;
};

}  // namespace

ContiguousAnswer contiguous_fits_in_order(const std::vector<std::vector<double>>& costs, int ranks,
                                          double capacity, const SearchLimits& limits,
                                          SearchOrder order) {
  return Search(costs, ranks, capacity, limits, order).run();
}

ContiguousAnswer contiguous_fits(const std::vector<std::vector<double>>& costs, int ranks,
                                 double capacity, const SearchLimits& limits) {
  // Each order gets the whole node budget (a capacity one order settles in a few thousand nodes
  // can take the other many times that, in either direction) and the first half the time to the
  // deadline; either one's "does not fit" is a proof.
  const auto now = std::chrono::steady_clock::now();
  SearchLimits first_limits = limits;
  if (limits.deadline > now && limits.deadline != std::chrono::steady_clock::time_point::max()) {
    first_limits.deadline = now + (limits.deadline - now) / 2;
  }
  ContiguousAnswer first =
      contiguous_fits_in_order(costs, ranks, capacity, first_limits, SearchOrder::kBucketByBucket);
  if (first.kind != ContiguousAnswer::Kind::kUnknown) return first;
  ContiguousAnswer second =
      contiguous_fits_in_order(costs, ranks, capacity, limits, SearchOrder::kFullestFirst);
  second.nodes += first.nodes;
  return second;
}

std::vector<std::vector<double>> mirrored(std::vector<std::vector<double>> per_bucket) {
  for (std::vector<double>& bucket : per_bucket) std::reverse(bucket.begin(), bucket.end());
  return per_bucket;
}

void unmirror(ContiguousAnswer& answer, int ranks) {
  for (std::vector<int>& owners : answer.owner) {
    std::reverse(owners.begin(), owners.end());
    for (int& owner : owners) owner = ranks - 1 - owner;
  }
}

SearchInput search_input(const layout::Buffer& buffer, std::span<const double> costs) {
  SearchInput input;
  input.per_bucket.resize(buffer.buckets.size());
  for (const layout::Bucket& bucket : buffer.buckets) {
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      if (costs[e] <= 0) continue;
      input.per_bucket[static_cast<std::size_t>(bucket.index)].push_back(costs[e]);
      input.total += costs[e];
      input.largest = std::max(input.largest, costs[e]);
    }
  }
  return input;
}

DpPartition partition_from_search(const layout::Buffer& buffer, std::span<const double> costs,
                                  const ContiguousAnswer& answer) {
  DpPartition found;
  found.method = "searched";
  found.owner.assign(buffer.entries.size(), -1);
  for (const layout::Bucket& bucket : buffer.buckets) {
    const auto& owners = answer.owner[static_cast<std::size_t>(bucket.index)];
    std::size_t next = 0;
    int current = owners.empty() ? 0 : owners.front();
    for (std::size_t e = bucket.first_entry; e <= bucket.last_entry; ++e) {
      if (costs[e] > 0) current = owners[next++];
      found.owner[e] = current;
    }
    found.buckets.push_back(
        BucketCuts{bucket.index, cuts_from_owners(buffer, bucket, found.owner)});
  }
  return found;
}

}  // namespace canzona::plan::detail
