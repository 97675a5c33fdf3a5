// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// nccl-tests calibration: synthetic outputs in the real table format, generated from known alpha
// and busbw, parse and fit back to them; the calibrated topology reproduces the fitted latency.
#include <canzona/core/error.hpp>
#include <canzona/sim/collective_model.hpp>
#include <canzona/sim/nccl_tests.hpp>
#include <canzona/testing/seed.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

namespace canzona::sim {
namespace {

// nccl-tests output (header, device lines, table, footer) of a collective whose time is exactly
// alpha + S·factor / busbw.
std::string synthetic_output(const std::string& binary, CollectiveClass kind, int ranks, int nodes,
                             double alpha_us, double busbw_gbps, bool name_collective = true) {
  std::string out = fmt::format(
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
      "iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n");
  for (int r = 0; r < ranks; ++r) {
    out += fmt::format(
        "#  Rank {:2} Group  0 Pid {:6} on node-{:03} device {:2} [0x{:02x}] NVIDIA "
        "H100 80GB HBM3\n",
        r, 1000 + r, r / (ranks / nodes), r % (ranks / nodes), 0x18 + r);
  }
  if (name_collective) out += fmt::format("# Collective test starting: {}\n", binary);
  out +=
      "#\n#                                                              out-of-place            "
      "           in-place\n#       size         count      type   redop    root     time   "
      "algbw   busbw #wrong     time   algbw   busbw #wrong\n#        (B)    (elements)        "
      "                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  const double factor = bus_factor(kind, ranks);
  for (double size = 8; size <= (1u << 30); size *= 4) {
    const double t_us = alpha_us + size * factor / (busbw_gbps * 1e3);
    const double algbw = size / t_us / 1e3;
    out += fmt::format(
        "  {:10.0f}  {:12.0f}     float     sum      -1  {:8.3f}  {:6.2f}  {:6.2f}      0  "
        "{:8.3f}  {:6.2f}  {:6.2f}      0\n",
        size, size / 4, t_us, algbw, algbw * factor, t_us, algbw, algbw * factor);
  }
  out += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 123.4\n#\n";
  return out;
}

class NcclTestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rng_.seed(canzona::testing::test_seed());
    alpha_us_ = std::uniform_real_distribution<double>(5, 60)(rng_);
    busbw_ = std::uniform_real_distribution<double>(20, 450)(rng_);
  }
  std::mt19937_64 rng_;
  double alpha_us_ = 0;
  double busbw_ = 0;
};

TEST_F(NcclTestsTest, ParsesTheTableAndRecoversAlphaAndBusbw) {
  SCOPED_TRACE(fmt::format("alpha {} us, busbw {} GB/s", alpha_us_, busbw_));
  const std::string text =
      synthetic_output("all_reduce_perf", CollectiveClass::kAllReduce, 8, 1, alpha_us_, busbw_);
  const NcclTestsRun run = parse_nccl_tests(text, "ar.txt");
  EXPECT_EQ(run.op, CollectiveClass::kAllReduce);
  EXPECT_EQ(run.ranks, 8);
  EXPECT_EQ(run.nodes, 1);
  EXPECT_EQ(run.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.rows.size(), 14u);
  const AlphaBetaFit fit = fit_alpha_beta(run);
  // The table prints 3 decimals of µs: the fit is exact up to that rounding.
  EXPECT_NEAR(fit.alpha_us, alpha_us_, 0.01);
  EXPECT_NEAR(fit.busbw_gbps, busbw_, 1e-3 * busbw_);
  EXPECT_LT(fit.max_relative_error, 1e-3);
}

TEST_F(NcclTestsTest, CollectiveFromAHintAndRanksFromTheBusFactor) {
  std::string text = synthetic_output("", CollectiveClass::kAllGather, 4, 1, alpha_us_, busbw_,
                                      /*name_collective=*/false);
  // Strip the device lines: the rank count must then come from busbw / algbw = 3/4.
  std::string stripped;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos + 1);
    if (line.find("#  Rank") == std::string::npos) stripped += line;
    pos = end + 1;
  }
  EXPECT_THROW(parse_nccl_tests(stripped, "ag.txt"), ConfigError);  // which collective?
  const NcclTestsRun run = parse_nccl_tests(stripped, "ag.txt", CollectiveClass::kAllGather);
  EXPECT_EQ(run.ranks, 4);
  EXPECT_NEAR(fit_alpha_beta(run).busbw_gbps, busbw_, 1e-3 * busbw_);
}

TEST_F(NcclTestsTest, MalformedOutputIsAConfigError) {
  EXPECT_THROW(parse_nccl_tests("# nothing here\n", "empty.txt"), ConfigError);
  EXPECT_THROW(parse_nccl_tests("  8  2  float  sum  -1  abc  0.0  0.0  0\n", "bad.txt",
                                CollectiveClass::kAllReduce),
               ConfigError);
  EXPECT_THROW(parse_nccl_tests("  8  2  float\n", "short.txt", CollectiveClass::kAllReduce),
               ConfigError);
}

TEST_F(NcclTestsTest, SingleNodeRunCalibratesNvlinkAndReproducesAlpha) {
  const NcclTestsRun run =
      parse_nccl_tests(synthetic_output("reduce_scatter_perf", CollectiveClass::kReduceScatter, 8,
                                        1, alpha_us_, busbw_),
                       "rs.txt");
  const Topology t = calibrate_topology(topology_preset("dgx-h100"), std::vector{run});
  EXPECT_NEAR(t.intra_node.busbw_gbps.reduce_scatter, busbw_, 1e-3 * busbw_);
  EXPECT_DOUBLE_EQ(t.intra_node.busbw_gbps.all_reduce, 480.0);  // untouched
  const GroupPlacement p = place_group(std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}, t.gpus_per_node);
  const double bytes = std::uniform_real_distribution<double>(1e3, 1e9)(rng_);
  const double measured_us = alpha_us_ + bytes * (7.0 / 8) / (busbw_ * 1e3);
  if (alpha_us_ >= 8 * 0.6 /* the ring steps' share must fit inside alpha */) {
    EXPECT_NEAR(
        estimate_collective(t, CollectiveClass::kReduceScatter, bytes * 7 / 8, p).seconds * 1e6,
        measured_us, 0.02 + 2e-3 * measured_us);
  }
  EXPECT_NE(t.provenance.back().find("rs.txt"), std::string::npos);
}

TEST_F(NcclTestsTest, MultiNodeRunCalibratesTheNicsPerRank) {
  const double busbw = std::uniform_real_distribution<double>(100, 360)(rng_);  // below NVLink
  // Above the 16.4 µs the model charges this group with free inter-node steps (8 + 14 × 0.6).
  const double alpha_us = std::uniform_real_distribution<double>(20, 80)(rng_);
  const NcclTestsRun run = parse_nccl_tests(
      synthetic_output("all_gather_perf", CollectiveClass::kAllGather, 16, 2, alpha_us, busbw),
      "ag2.txt");
  EXPECT_EQ(run.nodes, 2);
  const Topology t = calibrate_topology(topology_preset("dgx-h100"), std::vector{run});
  EXPECT_NEAR(t.inter_node.busbw_gbps.all_gather, busbw / 8, 1e-3 * busbw);
  // The fitted latency of this very group is reproduced through the inter-node step latency.
  std::vector<int> ranks(16);
  for (int i = 0; i < 16; ++i) ranks[static_cast<std::size_t>(i)] = i;
  const GroupPlacement p = place_group(ranks, 8);
  EXPECT_NEAR(estimate_collective(t, CollectiveClass::kAllGather, 0, p).latency_seconds * 1e6,
              alpha_us, 0.02);
}

}  // namespace
}  // namespace canzona::sim
