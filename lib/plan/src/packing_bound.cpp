// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The P||Cmax lower bound of the exact partition: configurations of the distinct costs, and a
// configuration program per candidate makespan.
#include "packing_bound.hpp"

#include "cbc_model.hpp"

#include <algorithm>
#include <functional>
#include <cstddef>
#include <map>
#include <numeric>
#include <vector>

namespace canzona::plan::detail {
namespace {

constexpr std::size_t kMostTypes = 16;
constexpr std::size_t kMostConfigurations = 200'000;
// Loads are sums of the same doubles in different orders: equal within this relative distance.
constexpr double kLoadTolerance = 1e-9;

// The distinct positive costs, largest first, and how many items have each.
struct ItemTypes {
  std::vector<double> cost;
  std::vector<int> count;
};

ItemTypes item_types(std::span<const double> costs) {
  std::map<double, int, std::greater<>> counts;
  for (const double c : costs) {
    if (c > 0) ++counts[c];
  }
  ItemTypes types;
  for (const auto& [cost, count] : counts) {
    types.cost.push_back(cost);
    types.count.push_back(count);
  }
  return types;
}

// Every non-empty configuration (items of each type on one machine, at most as many as exist)
// whose load is at most `upper`: counts flattened type-major per configuration, and loads.
struct Configurations {
  std::size_t types = 0;
  std::vector<int> counts;
  std::vector<double> load;
  std::size_t size() const { return load.size(); }
  int count(std::size_t config, std::size_t type) const { return counts[config * types + type]; }
};

class ConfigurationEnumerator {
 public:
  ConfigurationEnumerator(const ItemTypes& types, double upper)
      : types_(types), upper_(upper * (1 + kLoadTolerance)), current_(types.cost.size(), 0) {
    result_.types = types.cost.size();
  }

  // False when there are more than kMostConfigurations.
  bool run() { return visit(0, 0.0) && (drop_empty(), true); }
  Configurations take() { return std::move(result_); }

 private:
  bool visit(std::size_t type, double load) {
    if (type == current_.size()) {
      if (result_.size() >= kMostConfigurations) return false;
      result_.counts.insert(result_.counts.end(), current_.begin(), current_.end());
      result_.load.push_back(load);
      return true;
    }
    for (int k = 0; k <= types_.count[type]; ++k) {
      const double next = load + k * types_.cost[type];
      if (next > upper_) break;
      current_[type] = k;
      if (!visit(type + 1, next)) return false;
    }
    current_[type] = 0;
    return true;
  }
  // The all-zero configuration is enumerated first.
  void drop_empty() {
    if (result_.size() == 0) return;
    result_.counts.erase(result_.counts.begin(),
                         result_.counts.begin() + static_cast<std::ptrdiff_t>(result_.types));
    result_.load.erase(result_.load.begin());
  }

  const ItemTypes& types_;
  double upper_;
  std::vector<int> current_;
  Configurations result_;
};

enum class Packing { kFits, kDoesNotFit, kUnknown };

// Whether the items fit on `ranks` machines of capacity z: a configuration program over the
// configurations of load <= z to which no further item fits (a cover, so the others add
// nothing), minimising the machines used.
Packing fits(const ItemTypes& types, const Configurations& configs, double z, int ranks,
             double seconds) {
  const double capacity = z * (1 + kLoadTolerance);
  std::vector<std::size_t> columns;
  for (std::size_t p = 0; p < configs.size(); ++p) {
    if (configs.load[p] > capacity) continue;
    bool maximal = true;
    for (std::size_t t = 0; t < configs.types && maximal; ++t) {
      maximal = configs.count(p, t) == types.count[t] || configs.load[p] + types.cost[t] > capacity;
    }
    if (maximal) columns.push_back(p);
  }
  if (columns.empty()) return Packing::kDoesNotFit;
  const int rows = static_cast<int>(configs.types) + 1;  // covers, then the machine count
  SparseColumns program(rows);
  for (const std::size_t p : columns) {
    std::vector<std::pair<int, double>> column;
    for (std::size_t t = 0; t < configs.types; ++t) {
      if (configs.count(p, t) > 0) column.emplace_back(static_cast<int>(t), configs.count(p, t));
    }
    column.emplace_back(rows - 1, 1.0);
    program.add_column(column, 0.0, ranks, 1.0, /*integer=*/true);
  }
  for (std::size_t t = 0; t < configs.types; ++t) {
    program.set_row(static_cast<int>(t), types.count[t], kNoLimit);
  }
  program.set_row(rows - 1, -kNoLimit, ranks);
  const CbcOutcome outcome = program.solve(seconds);
  if (outcome.proven_infeasible) return Packing::kDoesNotFit;
  return outcome.has_solution ? Packing::kFits : Packing::kUnknown;
}

}  // namespace

PackingBound packing_lower_bound(std::span<const double> costs, int ranks, double upper,
                                 double seconds_per_solve) {
  const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
  const double largest = costs.empty() ? 0.0 : *std::max_element(costs.begin(), costs.end());
  const double simple = std::max(total / ranks, largest);
  if (ranks <= 1 || total <= 0 || upper <= simple) return {simple, {}};
  const ItemTypes types = item_types(costs);
  if (types.cost.size() > kMostTypes) return {simple, {}};
  ConfigurationEnumerator enumerator(types, upper);
  if (!enumerator.run()) return {simple, {}};
  const Configurations configs = enumerator.take();

  // The makespan of an optimal packing is the load of one of its machines: a configuration's.
  std::vector<double> candidates;
  for (const double load : configs.load) {
    if (load >= simple * (1 - kLoadTolerance)) candidates.push_back(load);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  if (candidates.empty()) return {simple, {}};
  // Every candidate below `low` is proven too small; `upper` itself is a packing's makespan.
  std::size_t low = 0;
  std::size_t high = candidates.size() - 1;
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    if (fits(types, configs, candidates[mid], ranks, seconds_per_solve) == Packing::kDoesNotFit) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  candidates.erase(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(low));
  return {std::max(simple, candidates.front() * (1 - kLoadTolerance)), std::move(candidates)};
}

}  // namespace canzona::plan::detail
