// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The ranks of a job agree on measured shape times: every rank ends with the slowest rank's
// time for each shape (a step waits for its slowest core), whichever rank that was.
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/core/error.hpp>
#include <canzona/sim/cache_agreement.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace canzona::sim {
namespace {

// Shape k's time on `rank`: drawn per (seed, rank, k), so the slowest rank differs by shape.
double time_of(std::uint64_t seed, int rank, int shape) {
  std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(rank + 1)) ^
                      static_cast<std::uint64_t>(shape));
  return std::uniform_real_distribution<double>(1e-4, 1e-1)(rng);
}

TEST(CacheAgreementMpiTest, EveryRankHoldsTheSlowestRanksTimeOfEachShape) {
  const auto world = comm::MpiCommunicator::world();
  const std::uint64_t seed = testing::test_seed();
  constexpr int kShapes = 16;
  ComputeCache cache("cpu");
  for (int k = 0; k < kShapes; ++k) {
    cache.insert("shape" + std::to_string(k), time_of(seed, world->rank(), k));
  }
  agree_on_cache(*world, cache);
  ASSERT_EQ(cache.size(), static_cast<std::size_t>(kShapes));
  for (int k = 0; k < kShapes; ++k) {
    double slowest = 0;
    for (int r = 0; r < world->size(); ++r) slowest = std::max(slowest, time_of(seed, r, k));
    const double* agreed = cache.find("shape" + std::to_string(k));
    ASSERT_NE(agreed, nullptr) << k;
    EXPECT_EQ(*agreed, slowest) << "shape " << k << " on rank " << world->rank();
  }
}

TEST(CacheAgreementMpiTest, RanksThatMeasuredDifferentShapesAreAnError) {
  const auto world = comm::MpiCommunicator::world();
  ComputeCache cache("cpu");
  for (int k = 0; k <= world->rank(); ++k) cache.insert("shape" + std::to_string(k), 1e-3);
  EXPECT_THROW(agree_on_cache(*world, cache), Error);
}

}  // namespace
}  // namespace canzona::sim
