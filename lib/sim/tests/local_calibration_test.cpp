// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The local calibration's fit on a noisy host: a size sweep whose times do not grow with the
// size (a descheduled small message) used to fail the whole validation run with "the table looks
// corrupt"; it now calibrates from its endpoints and says so.
#include <canzona/core/error.hpp>
#include <canzona/sim/local_calibration.hpp>
#include <canzona/sim/nccl_tests.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <utility>
#include <vector>

namespace canzona::sim {
namespace {

// A 2-rank all-reduce sweep with the given (bytes, microseconds) rows, as measure() builds it.
NcclTestsRun sweep(const std::vector<std::pair<double, double>>& rows) {
  NcclTestsRun run;
  run.source = "local MPI ping benchmark";
  run.op = CollectiveClass::kAllReduce;
  run.op_name = "all_reduce";
  run.ranks = 2;
  run.nodes = 1;
  for (const auto& [bytes, us] : rows) {
    NcclTestsRow row;
    row.bytes = bytes;
    row.count = static_cast<std::int64_t>(bytes / 4);
    row.type = "float";
    row.time_us = us;
    run.rows.push_back(row);
  }
  return run;
}

class LocalCalibrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rng_.seed(canzona::testing::test_seed());
    alpha_us_ = std::uniform_real_distribution<double>(5, 60)(rng_);
  }
  std::mt19937_64 rng_;
  double alpha_us_ = 0;
};

TEST_F(LocalCalibrationTest, ACleanSweepIsFittedAsMeasured) {
  // 1 GB/s: the time grows by 1 µs per kB.
  NcclTestsRun run = sweep({{65536, alpha_us_ + 65.536},
                            {1048576, alpha_us_ + 1048.576},
                            {16777216, alpha_us_ + 16777.216}});
  const NcclTestsRun before = run;
  EXPECT_EQ(make_fittable(run), std::nullopt);
  ASSERT_EQ(run.rows.size(), before.rows.size());
  for (std::size_t i = 0; i < run.rows.size(); ++i) {
    EXPECT_EQ(run.rows[i].time_us, before.rows[i].time_us);
  }
}

// The shape of the failure seen on a loaded machine: every message after the smallest was faster
// than it, so the fitted slope was negative.
TEST_F(LocalCalibrationTest, ASweepSlowedByNoiseFallsBackToItsEndpointsWithAWarning) {
  NcclTestsRun run = sweep({{65536, alpha_us_ + 900},
                            {1048576, alpha_us_ + 40},
                            {16777216, alpha_us_ + 30},
                            {134217728, alpha_us_ + 20}});
  EXPECT_THROW(fit_alpha_beta(run), ConfigError);  // what the calibration used to die of
  const std::optional<std::string> note = make_fittable(run);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("did not grow with the message size"), std::string::npos) << *note;
  EXPECT_NE(note->find("all_reduce"), std::string::npos) << *note;
  const AlphaBetaFit fit = fit_alpha_beta(run);
  EXPECT_NEAR(fit.alpha_us, alpha_us_ + 20, 1e-9);  // the fastest time bounds the latency
  EXPECT_TRUE(std::isfinite(fit.busbw_gbps));
  EXPECT_GT(fit.busbw_gbps, 0);
  // The whole local topology calibrates from it.
  Topology base = topology_preset("dgx-h100");
  base.device.reset();
  const Topology t = calibrate_topology(base, {run});
  EXPECT_TRUE(std::isfinite(t.intra_node.busbw_gbps.all_reduce));
}

TEST_F(LocalCalibrationTest, SizesAreSortedAndDeduplicatedBeforeFitting) {
  NcclTestsRun run = sweep({{16777216, alpha_us_ + 16777.216},
                            {65536, alpha_us_ + 65.536},
                            {65536, alpha_us_ + 70},
                            {1048576, alpha_us_ + 1048.576}});
  EXPECT_EQ(make_fittable(run), std::nullopt);
  ASSERT_EQ(run.rows.size(), 3u);
  EXPECT_EQ(run.rows.front().bytes, 65536);
  EXPECT_EQ(run.rows.front().time_us, alpha_us_ + 65.536);
  EXPECT_EQ(run.rows.back().bytes, 16777216);

  NcclTestsRun one_size = sweep({{65536, alpha_us_}, {65536, alpha_us_ + 1}});
  EXPECT_THROW(make_fittable(one_size), ConfigError);
}

}  // namespace
}  // namespace canzona::sim
