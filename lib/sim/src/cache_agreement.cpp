// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/sim/cache_agreement.hpp"

#include <canzona/core/error.hpp>

#include <string>
#include <vector>

namespace canzona::sim {

void agree_on_cache(comm::Communicator& world, ComputeCache& cache) {
  const auto size = static_cast<double>(cache.size());
  double sizes[2] = {size, -size};  // max and -min of the entry counts in one reduction
  double extremes[2] = {0, 0};
  world.all_reduce(sizes, extremes, 2, comm::DataType::kFloat64, comm::ReduceOp::kMax).wait();
  CANZONA_CHECK(extremes[0] == -extremes[1], "ranks measured different sets of shapes");
  std::vector<std::string> keys;
  std::vector<double> seconds;
  for (const auto& [key, value] : cache.entries()) {
    keys.push_back(key);
    seconds.push_back(value);
  }
  std::vector<double> slowest(seconds.size());
  world
      .all_reduce(seconds.data(), slowest.data(), seconds.size(), comm::DataType::kFloat64,
                  comm::ReduceOp::kMax)
      .wait();
  for (std::size_t i = 0; i < keys.size(); ++i) cache.insert(keys[i], slowest[i]);
}

}  // namespace canzona::sim
