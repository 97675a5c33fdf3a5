// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Item types and the enumeration of one rank's configurations.
#include "item_configurations.hpp"

#include <cstddef>
#include <functional>
#include <map>

namespace canzona::plan::detail {
namespace {

class ConfigurationEnumerator {
 public:
  ConfigurationEnumerator(const ItemTypes& types, double upper, std::size_t most)
      : types_(types),
        upper_(upper * (1 + kConfigurationLoadTolerance)),
        most_(most),
        current_(types.cost.size(), 0) {
    result_.types = types.cost.size();
  }

  // False when there are more than `most` (the empty configuration, enumerated first, is dropped
  // afterwards, hence one more here).
  bool run() { return visit(0, 0.0) && (drop_empty(), true); }
  Configurations take() { return std::move(result_); }

 private:
  bool visit(std::size_t type, double load) {
    if (type == current_.size()) {
      if (result_.size() > most_) return false;
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
  void drop_empty() {
    if (result_.size() == 0) return;
    result_.counts.erase(result_.counts.begin(),
                         result_.counts.begin() + static_cast<std::ptrdiff_t>(result_.types));
    result_.load.erase(result_.load.begin());
  }

  const ItemTypes& types_;
  double upper_;
  std::size_t most_;
  std::vector<int> current_;
  Configurations result_;
};

}  // namespace

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

std::optional<Configurations> enumerate_configurations(const ItemTypes& types, double upper,
                                                       std::size_t most) {
  ConfigurationEnumerator enumerator(types, upper, most);
  if (!enumerator.run()) return std::nullopt;
  return enumerator.take();
}

bool is_maximal(const ItemTypes& types, const Configurations& configs, std::size_t config,
                double capacity) {
  const double limit = capacity * (1 + kConfigurationLoadTolerance);
  for (std::size_t t = 0; t < configs.types; ++t) {
    if (configs.count(config, t) < types.count[t] &&
        configs.load[config] + types.cost[t] <= limit) {
      return false;
    }
  }
  return true;
}

}  // namespace canzona::plan::detail
