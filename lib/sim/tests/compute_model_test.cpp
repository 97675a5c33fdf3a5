// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Compute-time sources: the cost model by hand (roofline over the device profile), measurement on
// the cpu backend, and the cache (keys, JSON round trip, refusal of another backend's file).
#include <canzona/backend/backend.hpp>
#include <canzona/core/error.hpp>
#include <canzona/optim/cost_model.hpp>
#include <canzona/sim/compute_model.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace canzona::sim {
namespace {

optim::OptimizerSpec spec_of(optim::OptimizerKind kind) {
  optim::OptimizerSpec spec;
  spec.kind = kind;
  return spec;
}

class ComputeModelTest : public ::testing::Test {
 protected:
  void SetUp() override { rng_.seed(canzona::testing::test_seed()); }
  std::int64_t dim(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  static MeasureOptions measure_options(int steps, ComputeClock clock = ComputeClock::kWall) {
    MeasureOptions options;
    options.steps = steps;
    options.seed = canzona::testing::test_seed();
    options.clock = clock;
    return options;
  }
  std::mt19937_64 rng_;
  DeviceProfile h100_ = *topology_preset("dgx-h100").device;
};

TEST_F(ComputeModelTest, KeysNameOptimizerSettingsShapeAndDtype) {
  optim::OptimizerSpec muon = spec_of(optim::OptimizerKind::kMuon);
  EXPECT_EQ(compute_key(muon, {1280, 5120}), "muon[ns=5,bf16]/1280x5120");
  muon.muon.ns_precision = optim::NsPrecision::kFloat32;
  muon.muon.ns_steps = 6;
  EXPECT_EQ(compute_key(muon, {3, 4}), "muon[ns=6,fp32]/3x4");
  EXPECT_EQ(compute_key(spec_of(optim::OptimizerKind::kShampoo), {8, 8}),
            "shampoo[f=10,d=8192,fp32]/8x8");
  EXPECT_EQ(compute_key(spec_of(optim::OptimizerKind::kAdamW), {1, 100}), "adamw[fp32]/1x100");
}

TEST_F(ComputeModelTest, MuonCostIsGemmFlopsAtBf16RatePlusElementwiseAndOverhead) {
  const optim::Shape s{dim(64, 8192), dim(64, 8192)};
  const optim::OptimizerSpec muon = spec_of(optim::OptimizerKind::kMuon);
  const double flops = optim::step_cost(muon, s.rows, s.cols).hot_flops;
  const double expected =
      flops / (989.4e12 * 0.6) + static_cast<double>(s.rows * s.cols) * 36 / 3350e9 + 20e-6;
  CostModelCompute model(h100_);
  EXPECT_NEAR(model.step_seconds(muon, s), expected, 1e-12 * expected);
  EXPECT_EQ(model.kind(), "cost_model");
  EXPECT_NE(model.description().find("cost-model FLOPs / assumed rate"), std::string::npos);
}

TEST_F(ComputeModelTest, RefreshesAreAmortisedAtSolverRate) {
  const optim::Shape s{dim(64, 4096), dim(64, 4096)};
  const optim::OptimizerSpec shampoo = spec_of(optim::OptimizerKind::kShampoo);
  const optim::StepCost c = optim::step_cost(shampoo, s.rows, s.cols);
  const double expected = c.hot_flops / (66.9e12 * 0.6) + c.refresh_flops / 10 / 5e12 +
                          static_cast<double>(s.rows * s.cols) * 60 / 3350e9 + 20e-6;
  CostModelCompute model(h100_);
  EXPECT_NEAR(model.step_seconds(shampoo, s), expected, 1e-12 * expected);
}

TEST_F(ComputeModelTest, AdamWIsMemoryBound) {
  const std::int64_t n = dim(1000, 100000000);
  CostModelCompute model(h100_);
  const double expected = static_cast<double>(n) * 28 / 3350e9;
  EXPECT_NEAR(model.step_seconds(spec_of(optim::OptimizerKind::kAdamW), {1, n}), expected,
              1e-12 * expected);
}

TEST_F(ComputeModelTest, MemoryPassesStreamAtHbmBandwidth) {
  const auto bytes = static_cast<double>(dim(1000, 100000000));
  CostModelCompute model(h100_);
  EXPECT_NEAR(model.memory_pass_seconds(bytes), bytes / 3350e9, 1e-12 * bytes / 3350e9);
}

TEST_F(ComputeModelTest, MemoryPassesAreMeasuredOnceAndScaleWithTheBytes) {
  const auto backend = backend::make_backend("cpu");
  ComputeCache cache("cpu");
  MeasuredCompute measured(*backend, measure_options(2), &cache);
  const auto bytes = static_cast<double>(dim(1000, 100000000));
  const double seconds = measured.memory_pass_seconds(bytes);
  EXPECT_GT(seconds, 0.0);
  EXPECT_EQ(measured.measurements(), 1);
  EXPECT_NEAR(measured.memory_pass_seconds(3 * bytes), 3 * seconds, 1e-12 * seconds);
  EXPECT_EQ(measured.measurements(), 1);  // the rate is cached, not measured again
  EXPECT_EQ(cache.size(), 2u);            // on the wall and the thread CPU clock
  const double* pass = cache.find(memory_pass_key());
  ASSERT_NE(pass, nullptr);
  // The cached entry is the measured pass over 2^22 fp32 elements, 8 bytes each.
  const double per_byte = *pass / (8.0 * static_cast<double>(MeasuredCompute::kMemoryPassElements));
  EXPECT_NEAR(seconds, bytes * per_byte, 1e-12 * seconds);
  EXPECT_EQ(memory_pass_key(ComputeClock::kThreadCpu), memory_pass_key() + "@thread_cpu");
}

TEST_F(ComputeModelTest, MeasuresOnTheCpuBackendOncePerKey) {
  const auto backend = backend::make_backend("cpu");
  ComputeCache cache("cpu");
  std::vector<std::string> progress;
  MeasuredCompute measured(*backend,
                           MeasureOptions{2, 1, canzona::testing::test_seed(),
                                          [&](const std::string& key, double seconds, int count) {
                                            EXPECT_GT(seconds, 0.0);
                                            EXPECT_EQ(count, static_cast<int>(progress.size()) + 1);
                                            progress.push_back(key);
                                          }},
                           &cache);
  optim::OptimizerSpec muon = spec_of(optim::OptimizerKind::kMuon);
  muon.muon.ns_precision = optim::NsPrecision::kFloat32;
  const optim::Shape s{dim(8, 48), dim(8, 48)};
  const double first = measured.step_seconds(muon, s);
  EXPECT_GT(first, 0.0);
  EXPECT_EQ(measured.step_seconds(muon, s), first);  // cached, not re-measured
  EXPECT_EQ(measured.measurements(), 1);
  // SOAP: its update-free first step is warm-up; the window holds whole refresh intervals.
  optim::OptimizerSpec soap = spec_of(optim::OptimizerKind::kSoap);
  soap.soap.precondition_frequency = 3;
  EXPECT_GT(measured.step_seconds(soap, {8, 12}), 0.0);
  EXPECT_EQ(measured.measurements(), 2);
  EXPECT_EQ(progress.size(), 2u);  // one report per measurement, none for the cache hit
  EXPECT_EQ(cache.size(), 4u);     // each on the wall and the thread CPU clock
  EXPECT_EQ(measured.kind(), "measured");
}

TEST_F(ComputeModelTest, OneMeasurementFillsBothClocks) {
  const auto backend = backend::make_backend("cpu");
  ComputeCache cache("cpu");
  MeasuredCompute on_cpu(*backend, measure_options(3, ComputeClock::kThreadCpu), &cache);
  MeasuredCompute on_wall(*backend, measure_options(3), &cache);
  const optim::OptimizerSpec muon = spec_of(optim::OptimizerKind::kMuon);
  const optim::Shape s{dim(16, 64), dim(16, 64)};
  const double cpu = on_cpu.step_seconds(muon, s);
  const double wall = on_wall.step_seconds(muon, s);
  EXPECT_EQ(on_cpu.measurements(), 1);
  EXPECT_EQ(on_wall.measurements(), 0);  // the wall clock's entry came with the measurement
  EXPECT_EQ(cache.size(), 2u);
  ASSERT_NE(cache.find(compute_key(muon, s, ComputeClock::kThreadCpu)), nullptr);
  EXPECT_EQ(*cache.find(compute_key(muon, s)), wall);
  EXPECT_EQ(compute_key(muon, s, ComputeClock::kThreadCpu), compute_key(muon, s) + "@thread_cpu");
  EXPECT_GT(cpu, 0.0);
  // One thread cannot use more CPU time than the wall time of each window (the two clocks have
  // different sources: allow their granularity).
  EXPECT_LE(cpu, wall * 1.01 + 1e-4);
  EXPECT_NE(on_cpu.description().find("thread_cpu clock"), std::string::npos);
}

TEST_F(ComputeModelTest, CacheRoundTripsAndRefusesAnotherBackend) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("canzona-cache-" + std::to_string(canzona::testing::test_seed()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "cache.json";
  ComputeCache cache("cpu");
  const double seconds = std::uniform_real_distribution<double>(1e-6, 1.0)(rng_);
  cache.insert("muon[ns=5,bf16]/4x4", seconds);
  cache.save(path);
  ComputeCache loaded("cpu");
  loaded.load(path);
  ASSERT_NE(loaded.find("muon[ns=5,bf16]/4x4"), nullptr);
  EXPECT_EQ(*loaded.find("muon[ns=5,bf16]/4x4"), seconds);
  ComputeCache other("cuda");
  EXPECT_THROW(other.load(path), ConfigError);
  std::ofstream(dir / "junk.json") << "{\"format\": \"something else\"}";
  EXPECT_THROW(loaded.load(dir / "junk.json"), ConfigError);
  ComputeCache missing("cpu");
  EXPECT_NO_THROW(missing.load(dir / "does-not-exist.json"));  // nothing cached yet
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace canzona::sim
