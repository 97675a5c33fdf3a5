// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The P||Cmax lower bound of the exact partition: configurations of the distinct costs, and a
// configuration program per candidate makespan.
#include "packing_bound.hpp"

#include "cbc_model.hpp"
#include "item_configurations.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <optional>
#include <vector>

namespace canzona::plan::detail {
namespace {

constexpr std::size_t kMostTypes = 16;
constexpr std::size_t kMostConfigurations = 200'000;
constexpr double kLoadTolerance = kConfigurationLoadTolerance;

enum class Packing { kFits, kDoesNotFit, kUnknown };

// Whether the items fit on `ranks` machines of capacity z: a configuration program over the
// configurations of load <= z to which no further item fits (a cover, so the others add
// nothing), minimising the machines used.
Packing fits(const ItemTypes& types, const Configurations& configs, double z, int ranks,
             double seconds) {
  const double capacity = z * (1 + kLoadTolerance);
  std::vector<std::size_t> columns;
  for (std::size_t p = 0; p < configs.size(); ++p) {
    if (configs.load[p] <= capacity && is_maximal(types, configs, p, z)) columns.push_back(p);
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
  const std::optional<Configurations> enumerated =
      enumerate_configurations(types, upper, kMostConfigurations);
  if (!enumerated) return {simple, {}};
  const Configurations& configs = *enumerated;

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
