// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "rank_stats.hpp"

#include <canzona/core/error.hpp>

#include <algorithm>
#include <numeric>

namespace canzona::bench {

RankSpread spread(std::span<const double> values) {
  if (values.empty()) return {};
  // max_element, not minmax_element: the latter finds the last of equal maxima.
  const auto hi = std::max_element(values.begin(), values.end());
  const auto lo = std::min_element(values.begin(), values.end());
  RankSpread s;
  s.max = *hi;
  s.min = *lo;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  s.max_rank = static_cast<int>(hi - values.begin());
  return s;
}

RankRecords RankRecords::gather(comm::Communicator& world, std::span<const double> mine) {
  if (world.memory_space() != comm::MemorySpace::kHost) {
    throw Error("RankRecords::gather needs a host-memory communicator (MPI)");
  }
  RankRecords records;
  records.ranks_ = world.size();
  records.width_ = mine.size();
  records.values_.resize(mine.size() * static_cast<std::size_t>(world.size()));
  const std::vector<std::size_t> counts(static_cast<std::size_t>(world.size()), mine.size());
  world.all_gather(mine.data(), records.values_.data(), counts, comm::DataType::kFloat64).wait();
  return records;
}

std::span<const double> RankRecords::of(int rank) const {
  return std::span<const double>(values_).subspan(static_cast<std::size_t>(rank) * width_, width_);
}

std::vector<double> RankRecords::field(std::size_t field) const {
  std::vector<double> out;
  for (int r = 0; r < ranks_; ++r) out.push_back(of(r)[field]);
  return out;
}

}  // namespace canzona::bench
