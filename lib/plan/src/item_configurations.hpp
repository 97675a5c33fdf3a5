// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The items of a partition as types (one per distinct cost) and the configurations of one rank:
// how many items of each type it holds. Shared by the oracle's packing bound and the contiguous
// search's bound on the ranks the items left need.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace canzona::plan::detail {

/// Loads are sums of the same doubles in different orders: equal within this relative distance.
inline constexpr double kConfigurationLoadTolerance = 1e-9;

/// The distinct positive costs, largest first, and how many items have each.
struct ItemTypes {
  std::vector<double> cost;
  std::vector<int> count;
};
ItemTypes item_types(std::span<const double> costs);

/// Configurations: counts flattened type-major per configuration, and their loads.
struct Configurations {
  std::size_t types = 0;
  std::vector<int> counts;
  std::vector<double> load;
  std::size_t size() const { return load.size(); }
  int count(std::size_t config, std::size_t type) const { return counts[config * types + type]; }
};

/// Every non-empty configuration (at most as many items of a type as exist) whose load is at
/// most `upper`; nothing when there are more than `most`.
std::optional<Configurations> enumerate_configurations(const ItemTypes& types, double upper,
                                                       std::size_t most);

/// Whether no further item fits configuration `config` within `capacity`: every configuration of
/// load <= capacity lies below (item by item) one that is maximal, so the maximal ones suffice
/// for any cover.
bool is_maximal(const ItemTypes& types, const Configurations& configs, std::size_t config,
                double capacity);

}  // namespace canzona::plan::detail
