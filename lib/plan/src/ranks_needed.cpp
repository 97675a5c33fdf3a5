// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The configuration LP's bound on the ranks a multiset of items needs, by a small dictionary
// simplex on its dual.
#include "ranks_needed.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>

namespace canzona::plan::detail {
namespace {

constexpr std::size_t kMostTypes = 16;
constexpr std::size_t kMostConfigurations = 256;
// Pivots below this are zero; reduced costs above it still improve.
constexpr double kPivotTolerance = 1e-12;
// The LP's value is a sum of rounded products: an integral optimum may come out a hair above the
// integer, which must not round up to the next one.
constexpr double kRoundingSlack = 1e-6;
// More ranks than any search has: an item larger than the capacity fits on none.
constexpr int kNoRanksSuffice = std::numeric_limits<int>::max() / 2;

// max Σ_t n_t·y_t subject to Σ_t c_t·y_t <= 1 for every configuration c and y >= 0, by the
// simplex method on its dictionary (slack basis at the start, feasible since the right-hand sides
// are 1), Bland's rule against cycling on the many degenerate pivots. Returns y, or nothing when
// the LP is unbounded (a type no configuration holds).
std::optional<std::vector<double>> dual_point(const std::vector<std::vector<int>>& configs,
                                              const std::vector<int>& n) {
  const std::size_t types = n.size();
  const std::size_t rows = configs.size();
  // Dictionary: basic[i] = rhs[i] - Σ_j a[i][j]·(nonbasic j); z = z0 + Σ_j d[j]·(nonbasic j).
  // Variables 0..types-1 are y, types.. the slacks of the rows.
  std::vector<double> a(rows * types);
  std::vector<double> rhs(rows, 1.0);
  std::vector<double> d(n.begin(), n.end());
  std::vector<std::size_t> basic(rows);
  std::vector<std::size_t> nonbasic(types);
  for (std::size_t i = 0; i < rows; ++i) {
    basic[i] = types + i;
    for (std::size_t j = 0; j < types; ++j) a[i * types + j] = configs[i][j];
  }
  for (std::size_t j = 0; j < types; ++j) nonbasic[j] = j;
  // Bland's rule ends in exact arithmetic; in floating point a cap keeps a pathological case from
  // spinning. Every point on the way is feasible, so stopping early still gives a bound.
  const std::size_t most_pivots = 50 * (rows + types);
  for (std::size_t pivots = 0; pivots < most_pivots; ++pivots) {
    std::size_t enter = types;
    for (std::size_t j = 0; j < types; ++j) {
      if (d[j] > kPivotTolerance && (enter == types || nonbasic[j] < nonbasic[enter])) enter = j;
    }
    if (enter == types) break;
    std::size_t leave = rows;
    double least = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      const double coefficient = a[i * types + enter];
      if (coefficient <= kPivotTolerance) continue;
      const double ratio = rhs[i] / coefficient;
      if (leave == rows || ratio < least || (ratio == least && basic[i] < basic[leave])) {
        leave = i;
        least = ratio;
      }
    }
    if (leave == rows) return std::nullopt;
    // Pivot: the entering variable takes the leaving row.
    double* pivot_row = &a[leave * types];
    const double pivot = pivot_row[enter];
    rhs[leave] /= pivot;
    for (std::size_t j = 0; j < types; ++j)
      pivot_row[j] = j == enter ? 1 / pivot : pivot_row[j] / pivot;
    for (std::size_t i = 0; i < rows; ++i) {
      if (i == leave) continue;
      double* row = &a[i * types];
      const double f = row[enter];
      if (f == 0) continue;
      rhs[i] -= f * rhs[leave];
      for (std::size_t j = 0; j < types; ++j) {
        row[j] = j == enter ? -f * pivot_row[j] : row[j] - f * pivot_row[j];
      }
    }
    const double f = d[enter];
    for (std::size_t j = 0; j < types; ++j)
      d[j] = j == enter ? -f * pivot_row[j] : d[j] - f * pivot_row[j];
    std::swap(basic[leave], nonbasic[enter]);
  }
  std::vector<double> y(types, 0.0);
  for (std::size_t i = 0; i < rows; ++i) {
    if (basic[i] < types) y[basic[i]] = std::max(0.0, rhs[i]);
  }
  return y;
}

}  // namespace

RanksNeeded::RanksNeeded(const std::vector<std::vector<double>>& per_bucket, double capacity) {
  std::vector<double> all;
  for (const auto& bucket : per_bucket) all.insert(all.end(), bucket.begin(), bucket.end());
  const ItemTypes item = item_types(all);
  if (item.cost.empty() || item.cost.size() > kMostTypes) return;
  const std::optional<Configurations> configs =
      enumerate_configurations(item, capacity, kMostConfigurations);
  if (!configs) return;
  const std::size_t types = item.cost.size();
  for (std::size_t p = 0; p < configs->size(); ++p) {
    if (!is_maximal(item, *configs, p, capacity)) continue;
    maximal_.emplace_back(configs->counts.begin() + static_cast<std::ptrdiff_t>(p * types),
                          configs->counts.begin() + static_cast<std::ptrdiff_t>((p + 1) * types));
  }
  // Count vectors as one key: the product of the radices must stay within 64 bits.
  std::uint64_t keys = 1;
  for (const int count : item.count) {
    const auto radix = static_cast<std::uint64_t>(count) + 1;
    if (keys > std::numeric_limits<std::uint64_t>::max() / radix) return;
    keys *= radix;
    radix_.push_back(radix);
  }
  std::map<double, std::size_t> type_of;
  for (std::size_t t = 0; t < types; ++t) type_of[item.cost[t]] = t;
  suffix_counts_.resize(per_bucket.size());
  for (std::size_t b = 0; b < per_bucket.size(); ++b) {
    const std::vector<double>& costs = per_bucket[b];
    std::vector<int>& counts = suffix_counts_[b];
    counts.assign((costs.size() + 1) * types, 0);
    for (std::size_t p = costs.size(); p-- > 0;) {
      std::copy_n(counts.begin() + static_cast<std::ptrdiff_t>((p + 1) * types), types,
                  counts.begin() + static_cast<std::ptrdiff_t>(p * types));
      ++counts[p * types + type_of.at(costs[p])];
    }
  }
  counts_.assign(types, 0);
  active_ = true;
}

int RanksNeeded::at_least(std::span<const int> position) {
  if (!active_) return 0;
  const std::size_t types = counts_.size();
  std::fill(counts_.begin(), counts_.end(), 0);
  for (std::size_t b = 0; b < suffix_counts_.size(); ++b) {
    const int* left = &suffix_counts_[b][static_cast<std::size_t>(position[b]) * types];
    for (std::size_t t = 0; t < types; ++t) counts_[t] += left[t];
  }
  std::uint64_t key = 0;
  for (std::size_t t = 0; t < types; ++t)
    key = key * radix_[t] + static_cast<std::uint64_t>(counts_[t]);
  const auto [it, inserted] = remembered_.try_emplace(key, 0);
  if (inserted) it->second = lp_bound(counts_);
  return it->second;
}

int RanksNeeded::lp_bound(const std::vector<int>& counts) const {
  if (std::all_of(counts.begin(), counts.end(), [](int c) { return c == 0; })) return 0;
  const std::optional<std::vector<double>> y = dual_point(maximal_, counts);
  if (!y) return kNoRanksSuffice;
  // Rounding may leave y a hair outside the polytope: scale it back in, so that the bound stays
  // a bound.
  double most = 1;
  for (const std::vector<int>& config : maximal_) {
    double load = 0;
    for (std::size_t t = 0; t < counts.size(); ++t) load += config[t] * (*y)[t];
    most = std::max(most, load);
  }
  double value = 0;
  for (std::size_t t = 0; t < counts.size(); ++t) value += counts[t] * (*y)[t] / most;
  return static_cast<int>(std::ceil(value - kRoundingSlack));
}

}  // namespace canzona::plan::detail
