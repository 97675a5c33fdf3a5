// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The shared per-element rules (ops/numerics.hpp, ops/elementwise_ops.hpp) on the host, each
// against its formula evaluated in double, plus the special values the rules exist for: NaN
// propagation through max, the one bf16 NaN, NaN-last sort keys, exact inverse-root orders.
// The cuda backend runs these very functors, so what passes here is what the GPU computes.
//
// Tolerances are running error bounds |got − exact| ≤ c·u·M (u = 2^-24, M = the expression on
// absolute values, c = the fp32 roundings on the longest path, rounded up, stated per case);
// a quotient adds its relative error to the bound of its operands.
#include "elementwise_ops.hpp"
#include "numerics.hpp"
#include "run_ops.hpp"
#include "solver_batches.hpp"

#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace canzona::backend::ops {
namespace {

constexpr double kU = 1.0 / (1 << 24);
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::int64_t kN = 4099;  // odd, not a multiple of any vector width

std::mt19937_64 make_rng(std::uint64_t salt) {
  return std::mt19937_64(canzona::testing::test_seed() ^ (salt * 0x9e3779b97f4a7c15ULL));
}

std::string seed_trace() {
  return "CANZONA_TEST_SEED=" + std::to_string(canzona::testing::test_seed());
}

std::vector<float> uniform(std::mt19937_64& rng, std::int64_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(static_cast<std::size_t>(n));
  for (float& x : out) x = dist(rng);
  return out;
}

double d(float x) { return static_cast<double>(x); }

// The functors run through the cpu backend's own loops.
using cpu::for_each;
using cpu::for_each_row;

#define EXPECT_NEAR_BOUND(got, exact, bound) \
  ASSERT_LE(std::fabs(d(got) - (exact)), (bound)) << "exact " << (exact) << ", got " << (got)

// ---- numerics -------------------------------------------------------------------------------

TEST(NumericsTest, MaxNanKeepsNaNFromEitherSide) {
  EXPECT_TRUE(std::isnan(max_nan(kNan, 1.0f)));
  EXPECT_TRUE(std::isnan(max_nan(1.0f, kNan)));
  EXPECT_TRUE(std::isnan(max_nan(-kNan, -kInf)));
  EXPECT_EQ(bits_of(max_nan(kNan, 0.0f)), kNanBits) << "one NaN pattern";
  EXPECT_EQ(max_nan(2.0f, 3.0f), 3.0f);
  EXPECT_EQ(max_nan(-kInf, -1.0f), -1.0f);
  EXPECT_EQ(bits_of(max_nan(-0.0f, 0.0f)), bits_of(-0.0f)) << "ties keep the first, as std::max";
}

TEST(NumericsTest, NonfiniteIsTheExponentTest) {
  for (float x : {kNan, -kNan, kInf, -kInf, std::numeric_limits<float>::signaling_NaN()}) {
    EXPECT_TRUE(is_nonfinite(x)) << x;
  }
  for (float x : {0.0f, -0.0f, 1.0f, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min()}) {
    EXPECT_FALSE(is_nonfinite(x)) << x;
  }
}

TEST(NumericsTest, InverseRootOrderAcceptsOnlyInversePowersOfTwo) {
  EXPECT_EQ(inverse_root_order(-1.0f), 0);
  EXPECT_EQ(inverse_root_order(-0.5f), 1);
  EXPECT_EQ(inverse_root_order(-0.25f), 2);
  EXPECT_EQ(inverse_root_order(-1.0f / 256.0f), 8);
  for (float bad : {0.0f, 0.25f, -0.3f, -1.5f, -1.0f / 512.0f, kNan}) {
    EXPECT_EQ(inverse_root_order(bad), -1) << bad;
  }
}

TEST(NumericsTest, InverseRootIsWithinItsBoundOfTheExactRoot) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(1);
  std::uniform_real_distribution<double> exponent(-40.0, 40.0);
  for (int k = 0; k <= 4; ++k) {
    for (int t = 0; t < 20000; ++t) {
      const auto x = static_cast<float>(std::exp2(exponent(rng)));
      const double exact = std::pow(d(x), -1.0 / std::exp2(k));
      // k square roots (each 0.5 ulp, shrinking through later roots) and the division: k/2 + 1.
      EXPECT_NEAR_BOUND(inverse_root(x, k), exact, (0.5 * k + 1.0) * 2 * kU * exact);
    }
  }
  EXPECT_TRUE(std::isnan(inverse_root(kNan, 2)));
  EXPECT_TRUE(std::isnan(inverse_root(-1.0f, 2)));
  EXPECT_EQ(inverse_root(0.0f, 2), kInf);
  EXPECT_EQ(inverse_root(16.0f, 2), 0.5f);
  EXPECT_EQ(inverse_root(4.0f, 0), 0.25f);
}

TEST(NumericsTest, InverseRootFactorClampsNegativeEigenvaluesAndKeepsNaN) {
  EXPECT_EQ(inverse_root_factor(-3.0f, 4.0f, 1), 0.5f) << "(max(-3, 0) + 4)^-1/2";
  EXPECT_EQ(inverse_root_factor(12.0f, 4.0f, 2), 0.5f) << "(12 + 4)^-1/4";
  EXPECT_TRUE(std::isnan(inverse_root_factor(kNan, 1e-6f, 2)))
      << "a failed eigensolve must not become a finite preconditioner";
}

TEST(NumericsTest, DescendingSortKeysOrderLikeTheComparisonWithNaNLast) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(2);
  std::vector<float> values{kNan,
                            -kNan,
                            kInf,
                            -kInf,
                            0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            float_of(0x7f800001U),
                            float_of(0xffbfffffU)};
  for (int i = 0; i < 500; ++i) values.push_back(float_of(static_cast<std::uint32_t>(rng())));
  for (float a : values) {
    for (float b : values) {
      const std::uint32_t ka = descending_sort_key(a);
      const std::uint32_t kb = descending_sort_key(b);
      if (std::isnan(a) || std::isnan(b)) {
        if (std::isnan(a) && std::isnan(b)) {
          ASSERT_EQ(ka, kb) << "every NaN ties";
        } else if (std::isnan(a)) {
          ASSERT_GT(ka, kb) << "NaN after " << b;
        }
        continue;
      }
      ASSERT_EQ(a > b, ka < kb) << a << " vs " << b;
      ASSERT_EQ(a == b, ka == kb) << a << " vs " << b;
    }
  }
}

TEST(NumericsTest, DescendingSortKeysGiveTheStableDescendingPermutation) {
  const std::vector<float> v{1.0f, kNan, 3.0f, -0.0f, 3.0f, 0.0f, -kNan, kInf};
  std::vector<std::uint32_t> keys(v.size());
  std::vector<int> perm(v.size());
  const auto n = static_cast<std::int64_t>(v.size());
  for_each(n, DescendingSortKeys{v.data(), keys.data(), perm.data(), n});
  EXPECT_EQ(perm, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  std::stable_sort(perm.begin(), perm.end(), [&](int l, int r) { return keys[l] < keys[r]; });
  EXPECT_EQ(perm, (std::vector<int>{7, 2, 4, 0, 3, 5, 1, 6}));

  // Segments of 3: every segment's indices count from 0 (they index within the segment).
  for_each(6, DescendingSortKeys{v.data(), keys.data(), perm.data(), 3});
  EXPECT_EQ(std::vector<int>(perm.begin(), perm.begin() + 6), (std::vector<int>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(keys[3], descending_sort_key(v[3]));
}

// The cuda backend sorts all segments at once by segment-prefixed keys; the cpu backend sorts
// each segment by its own keys. Both are stable sorts, so the permutations must be the same.
TEST(NumericsTest, SegmentedSortKeysGiveEachSegmentsOwnStablePermutation) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(13);
  constexpr std::int64_t kLen = 29, kCount = 7;
  const float choices[] = {1.0f, 0.0f, -0.0f, -3.0f, kNan, -kNan, kInf, 0.5f};
  std::uniform_int_distribution<int> pick(0, 7);
  std::vector<float> v(kLen * kCount);
  for (float& x : v) x = choices[pick(rng)];
  // One sort over everything, as the GPU does it.
  std::vector<std::uint64_t> keys64(v.size());
  std::vector<int> index(v.size());
  for_each(kLen * kCount, SegmentedDescendingSortKeys{v.data(), keys64.data(), index.data(), kLen});
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t l, std::size_t r) { return keys64[l] < keys64[r]; });
  std::vector<int> together(v.size());
  for (std::size_t at = 0; at < order.size(); ++at) together[at] = index[order[at]];
  // One sort per segment, as the cpu backend does it.
  std::vector<std::uint32_t> keys(v.size());
  std::vector<int> separate(v.size());
  for_each(kLen * kCount, DescendingSortKeys{v.data(), keys.data(), separate.data(), kLen});
  for (std::int64_t i = 0; i < kCount; ++i) {
    const std::uint32_t* seg = keys.data() + i * kLen;
    std::stable_sort(separate.begin() + i * kLen, separate.begin() + (i + 1) * kLen,
                     [seg](int l, int r) { return seg[l] < seg[r]; });
  }
  EXPECT_EQ(together, separate);
}

// ---- conversion -----------------------------------------------------------------------------

TEST(ElementwiseOpsTest, ConvertRoundTripsThroughBf16) {
  const std::vector<float> x{1.0f, 1.0f + 0x1p-8f, 1.0f + 3 * 0x1p-8f, kNan, -kInf, -0.0f};
  std::vector<bf16_bits> narrow(x.size());
  std::vector<float> back(x.size());
  const auto n = static_cast<std::int64_t>(x.size());
  for_each(n, Convert<bf16_bits, float>{narrow.data(), x.data()});
  for_each(n, Convert<float, bf16_bits>{back.data(), narrow.data()});
  EXPECT_EQ(narrow,
            (std::vector<bf16_bits>{0x3f80U, 0x3f80U, 0x3f82U, kBf16Nan, 0xff80U, 0x8000U}));
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(bits_of(back[i]), static_cast<std::uint32_t>(narrow[i]) << 16);
  }
}

// ---- optimizer updates ----------------------------------------------------------------------

TEST(ElementwiseOpsTest, MuonMomentumAgainstDouble) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(3);
  const float mu = 0.95f;
  for (bool nesterov : {false, true}) {
    std::vector<float> buf = uniform(rng, kN, -2, 2);
    const std::vector<float> buf0 = buf;
    const std::vector<float> g = uniform(rng, kN, -2, 2);
    std::vector<float> out(kN);
    std::vector<bf16_bits> out16(kN);
    std::vector<float> buf16 = buf0;
    for_each(kN, MuonMomentum<float>{buf.data(), g.data(), out.data(), mu, 1.0f - mu, nesterov});
    for_each(
        kN, MuonMomentum<bf16_bits>{buf16.data(), g.data(), out16.data(), mu, 1.0f - mu, nesterov});
    const double m = d(mu), om = d(1.0f - mu);
    for (std::size_t i = 0; i < buf.size(); ++i) {
      const double b = m * buf0[i] + om * g[i];
      const double bound_b = 2 * kU * (m * std::fabs(buf0[i]) + om * std::fabs(g[i]));
      EXPECT_NEAR_BOUND(buf[i], b, bound_b);
      ASSERT_EQ(buf16[i], buf[i]) << "the state is fp32 whatever the output type";
      const double o = nesterov ? om * g[i] + m * b : b;
      // Nesterov: two products, a sum, and μ times the (already bounded) buffer: c = 4.
      const double bound_o =
          nesterov ? 4 * kU * (om * std::fabs(g[i]) + m * std::fabs(b)) + m * bound_b : bound_b;
      EXPECT_NEAR_BOUND(out[i], o, bound_o);
      ASSERT_EQ(out16[i], float_to_bf16(out[i])) << "bf16 output = the fp32 value rounded once";
    }
  }
}

TEST(ElementwiseOpsTest, NormalizeAgainstDoubleAndKeepsNaNNorms) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(4);
  constexpr std::int64_t kCount = 3;
  std::vector<float> x = uniform(rng, kN * kCount, -1, 1);
  const std::vector<float> x0 = x;
  const std::vector<float> sumsq{4.0f, 1e-12f, kNan};
  const float eps = 1e-4f;
  for_each_row(kCount, kN, Normalize<float>{x.data(), kN, sumsq.data(), eps});
  for (std::int64_t item = 0; item < kCount; ++item) {
    for (std::int64_t i = 0; i < kN; ++i) {
      const auto at = static_cast<std::size_t>(item * kN + i);
      if (item == 2) {
        ASSERT_TRUE(std::isnan(x[at])) << "a NaN norm must not be clamped to eps";
        continue;
      }
      const double denom = std::max(std::sqrt(d(sumsq[static_cast<std::size_t>(item)])), d(eps));
      // sqrt and the division: c = 2.
      EXPECT_NEAR_BOUND(x[at], x0[at] / denom, 2 * kU * std::fabs(x0[at] / denom));
    }
  }
}

TEST(ElementwiseOpsTest, NormalizeRmsAgainstDouble) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(5);
  std::vector<float> x = uniform(rng, kN, -3, 3);
  const std::vector<float> x0 = x;
  const float sumsq = 1234.5f;
  const float eps = 1e-3f;
  for_each_row(1, kN, NormalizeRms{x.data(), kN, &sumsq, eps});
  const double denom = d(eps) + std::sqrt(d(sumsq) / kN);
  for (std::size_t i = 0; i < x.size(); ++i) {
    // division by n, sqrt, + eps, the final division: c = 4.
    EXPECT_NEAR_BOUND(x[i], x0[i] / denom, 4 * kU * std::fabs(x0[i] / denom));
  }
}

TEST(ElementwiseOpsTest, AxpbyEmaAndEmaSquareAgainstDouble) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(6);
  const std::vector<float> x = uniform(rng, kN, -2, 2);
  std::vector<float> y = uniform(rng, kN, -2, 2);
  std::vector<float> m = y;
  std::vector<float> v = uniform(rng, kN, 0, 2);
  const std::vector<float> y0 = y;
  const std::vector<float> v0 = v;
  const float alpha = 0.3f, beta = -1.7f, b = 0.999f;
  for_each(kN, Axpby<float>{y.data(), x.data(), alpha, beta});
  for_each(kN, Ema{m.data(), x.data(), b, 1.0f - b});
  for_each(kN, EmaSquare{v.data(), x.data(), b, 1.0f - b});
  const double ob = d(1.0f - b);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double ax = std::fabs(d(x[i]));
    EXPECT_NEAR_BOUND(y[i], d(alpha) * x[i] + d(beta) * y0[i],
                      2 * kU * (std::fabs(d(alpha)) * ax + std::fabs(d(beta) * y0[i])));
    EXPECT_NEAR_BOUND(m[i], d(b) * y0[i] + ob * x[i], 2 * kU * (d(b) * std::fabs(y0[i]) + ob * ax));
    EXPECT_NEAR_BOUND(v[i], d(b) * v0[i] + ob * x[i] * x[i],
                      3 * kU * (d(b) * v0[i] + ob * ax * ax));
  }
}

TEST(ElementwiseOpsTest, AdamDirectionAndDivideSqrtEpsAgainstDouble) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(7);
  const std::vector<float> m = uniform(rng, kN, -1, 1);
  const std::vector<float> v = uniform(rng, kN, 0, 1);
  std::vector<float> dir(kN), q(kN);
  const float bias1 = 0.1f, bias2 = 0.001f, eps = 1e-8f;
  for_each(kN, AdamDirection{m.data(), v.data(), dir.data(), bias1, bias2, eps});
  for_each(kN, DivideSqrtEps{m.data(), v.data(), q.data(), eps});
  for (std::size_t i = 0; i < m.size(); ++i) {
    const double e = (d(m[i]) / bias1) / (std::sqrt(d(v[i]) / bias2) + eps);
    // two divisions of m, the division and sqrt of v (half), the + eps: c = 5.
    EXPECT_NEAR_BOUND(dir[i], e, 5 * kU * std::fabs(e));
    const double f = d(m[i]) / (std::sqrt(d(v[i])) + eps);
    EXPECT_NEAR_BOUND(q[i], f, 3 * kU * std::fabs(f));
  }
}

TEST(ElementwiseOpsTest, ApplyUpdateBothOrdersRatiosAndNaN) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(8);
  constexpr std::int64_t kCount = 2;
  const std::vector<float> u = uniform(rng, kN * kCount, -1, 1);
  std::vector<bf16_bits> u16(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) u16[i] = float_to_bf16(u[i]);
  const std::vector<float> p0 = uniform(rng, kN * kCount, -1, 1);
  const std::vector<float> num{9.0f, 2.0f};
  const std::vector<float> den{4.0f, 0.0f};
  const float lr = 0.02f, wd = 0.1f, scale = 1.5f;
  const float decay = 1.0f - lr * wd;
  for (bool decay_first : {true, false}) {
    for (bool ratio : {false, true}) {
      for (bool bf16 : {false, true}) {
        std::vector<float> p = p0;
        const float* rn = ratio ? num.data() : nullptr;
        const float* rd = ratio ? den.data() : nullptr;
        if (bf16) {
          for_each_row(kCount, kN,
                       ApplyUpdate<bf16_bits>{p.data(), u16.data(), kN, lr, scale, decay,
                                              decay_first, rn, rd});
        } else {
          for_each_row(
              kCount, kN,
              ApplyUpdate<float>{p.data(), u.data(), kN, lr, scale, decay, decay_first, rn, rd});
        }
        for (std::int64_t item = 0; item < kCount; ++item) {
          const auto it = static_cast<std::size_t>(item);
          const double s =
              ratio ? d(scale) * std::sqrt(d(num[it])) / std::max(std::sqrt(d(den[it])), d(1e-30f))
                    : d(scale);
          const double step = d(lr) * s;
          for (std::int64_t i = 0; i < kN; ++i) {
            const auto at = static_cast<std::size_t>(item * kN + i);
            const double ui = bf16 ? d(bf16_to_float(u16[at])) : d(u[at]);
            const double e =
                decay_first ? p0[at] * d(decay) - step * ui : (p0[at] - step * ui) * d(decay);
            // the step size (up to 5 roundings with the ratio), its product with u, the decay
            // product and the difference: c = 9 on the magnitudes.
            EXPECT_NEAR_BOUND(p[at], e,
                              9 * kU * (std::fabs(d(p0[at])) + std::fabs(step * ui)) + 1e-30);
          }
        }
      }
    }
  }
  // A NaN norm in the grafting ratio must reach the parameter (fmaxf used to hide it).
  std::vector<float> p = p0;
  const float bad_den = kNan;
  for_each_row(
      1, kN,
      ApplyUpdate<float>{p.data(), u.data(), kN, lr, scale, decay, true, num.data(), &bad_den});
  for (std::int64_t i = 0; i < kN; ++i) ASSERT_TRUE(std::isnan(p[static_cast<std::size_t>(i)]));
}

TEST(ElementwiseOpsTest, AdamwStepAgainstDouble) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(9);
  const std::vector<float> g = uniform(rng, kN, -1, 1);
  std::vector<float> m = uniform(rng, kN, -0.1f, 0.1f);
  std::vector<float> v = uniform(rng, kN, 0, 0.01f);
  std::vector<float> p = uniform(rng, kN, -1, 1);
  const std::vector<float> m0 = m, v0 = v, p0 = p;
  const float lr = 1e-3f, b1 = 0.9f, b2 = 0.95f, eps = 1e-8f, wd = 0.1f;
  const float bias1 = 1.0f - 0.9f * 0.9f, bias2 = 1.0f - 0.95f * 0.95f;
  for_each(kN, AdamwStep{p.data(), g.data(), m.data(), v.data(), lr, b1, 1.0f - b1, b2, 1.0f - b2,
                         eps, 1.0f - lr * wd, bias1, bias2});
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double em = d(b1) * m0[i] + d(1.0f - b1) * g[i];
    const double ev = d(b2) * v0[i] + d(1.0f - b2) * g[i] * g[i];
    EXPECT_NEAR_BOUND(m[i], em,
                      2 * kU * (d(b1) * std::fabs(m0[i]) + d(1.0f - b1) * std::fabs(g[i])));
    EXPECT_NEAR_BOUND(v[i], ev, 3 * kU * ev);
    // The direction from the fp32 moments (bounded above), then lr·dir and the decayed p.
    const double dir = (d(m[i]) / bias1) / (std::sqrt(d(v[i]) / bias2) + eps);
    const double ep = p0[i] * d(1.0f - lr * wd) - d(lr) * dir;
    EXPECT_NEAR_BOUND(p[i], ep, 8 * kU * (std::fabs(d(p0[i])) + d(lr) * std::fabs(dir)));
  }
}

// ---- reduction terms ------------------------------------------------------------------------

TEST(ElementwiseOpsTest, SquareAndNonfiniteFlagTerms) {
  const std::vector<float> x{3.0f, -0.5f, kNan, kInf, -kInf, 0.0f};
  std::vector<bf16_bits> x16(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x16[i] = float_to_bf16(x[i]);
  const Square<float> sq{x.data()};
  const Square<bf16_bits> sq16{x16.data()};
  const NonfiniteFlag flag{x.data()};
  EXPECT_EQ(sq(0), 9.0f);
  EXPECT_EQ(sq16(1), 0.25f);
  EXPECT_TRUE(std::isnan(sq(2)));
  EXPECT_EQ(sq(4), kInf);
  int bad = 0;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(x.size()); ++i) bad += flag(i);
  EXPECT_EQ(bad, 3);
}

// The cuda backend's column functor and the cpu backend's row functor run the same dot_steps
// in the same order per column, so they agree bit for bit; both are a sequential fp32 dot
// product, within γ(n)·Σ|a·b| of the exact sum. NaN and Inf terms propagate alike.
TEST(ElementwiseOpsTest, ColumnDotsByColumnsAndByRowsAgreeBitwise) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(12);
  constexpr std::int64_t kD = 37, kCount = 3;
  std::vector<float> a = uniform(rng, kD * kD * kCount, -2, 2);
  const std::vector<float> b = uniform(rng, kD * kD * kCount, -2, 2);
  a[5 * kD + 4] = kNan;            // item 0, column 4
  a[kD * kD + 2 * kD + 6] = kInf;  // item 1, column 6
  a[2 * kD * kD + 1] = 0x1p-140f;  // a subnormal product
  std::vector<float> by_columns(kD * kCount, -1.0f);
  std::vector<float> by_rows(kD * kCount, 0.0f);
  for_each(kD * kCount, ColumnDots{a.data(), b.data(), kD, by_columns.data()});
  for_each_row(kD * kCount, kD, ColumnDotsByRows{a.data(), b.data(), kD, by_rows.data()});
  for (std::int64_t k = 0; k < kD * kCount; ++k) {
    const float got = by_columns[static_cast<std::size_t>(k)];
    const float row_order = by_rows[static_cast<std::size_t>(k)];
    ASSERT_TRUE(bits_of(got) == bits_of(row_order) || (std::isnan(got) && std::isnan(row_order)))
        << "k " << k << ": " << got << " vs " << row_order;
    const std::int64_t item = k / kD, j = k % kD;
    double exact = 0.0, magnitude = 0.0;
    for (std::int64_t r = 0; r < kD; ++r) {
      const auto at = static_cast<std::size_t>(item * kD * kD + r * kD + j);
      exact += d(a[at]) * d(b[at]);
      magnitude += std::fabs(d(a[at]) * d(b[at]));
    }
    if (!std::isfinite(exact)) {
      EXPECT_EQ(std::isnan(got), std::isnan(exact)) << "k " << k;
      continue;
    }
    // n products and n − 1 sums on the longest path: c = n + 1.
    EXPECT_NEAR_BOUND(got, exact, (kD + 1) * kU * magnitude);
  }
}

TEST(ElementwiseOpsTest, CountFlagsAddsFlaggedElementsToTheCounter) {
  const std::vector<float> x{kNan, 1.0f, kInf, 2.0f};
  const std::vector<int> info{0, 3, 0, -1, 0};
  int counter = 5;  // adds to what is there
  const CountFlags<NonfiniteFlag> nonfinite{{x.data()}, &counter};
  for (std::int64_t i = 0; i < 4; ++i) nonfinite(i);
  EXPECT_EQ(counter, 7);
  const CountFlags<NonzeroFlag> failures{{info.data()}, &counter};
  for (std::int64_t i = 0; i < 5; ++i) failures(i);
  EXPECT_EQ(counter, 9);
}

TEST(ElementwiseOpsTest, CopyWordsAndBytesCopyExactly) {
  const std::vector<std::uint32_t> words{0x7fc00001U, 0U, 0xffffffffU};
  std::vector<std::uint32_t> words_out(3);
  const CopyWords copy_words{words_out.data(), words.data()};
  for (std::int64_t i = 0; i < 3; ++i) copy_words(i);
  EXPECT_EQ(words_out, words);
  const std::vector<unsigned char> bytes{1, 0, 255, 7, 9};
  std::vector<unsigned char> bytes_out(5);
  const CopyBytes copy_bytes{bytes_out.data(), bytes.data()};
  for (std::int64_t i = 0; i < 5; ++i) copy_bytes(i);
  EXPECT_EQ(bytes_out, bytes);
}

// ---- small-matrix helpers -------------------------------------------------------------------

TEST(ElementwiseOpsTest, AddDiagonalReverseAndPermute) {
  std::vector<float> a{1, 2, 3, 4, 5, 6, 7, 8};  // two 2×2 items
  for_each_row(2, 2, AddDiagonal{a.data(), 2, 0.5f});
  EXPECT_EQ(a, (std::vector<float>{1.5f, 2, 3, 4.5f, 5.5f, 6, 7, 8.5f}));
  std::vector<float> b{1, 2, 3, 4, 5, 6, 7, 8, 9};  // one 3×3 item: the middle column stays
  for_each_row(3, 3 / 2, ReverseColumns{b.data(), 3});
  EXPECT_EQ(b, (std::vector<float>{3, 2, 1, 6, 5, 4, 9, 8, 7}));
  const std::vector<float> m{1, 2, 3, 4, 5, 6};  // 2×3
  const std::vector<int> cols{2, 0, 1};
  const std::vector<int> rows{1, 0};
  std::vector<float> out(6);
  for_each_row(2, 3, PermuteColumns{m.data(), 3, cols.data(), out.data()});
  EXPECT_EQ(out, (std::vector<float>{3, 1, 2, 6, 4, 5}));
  for_each_row(2, 3, PermuteRows{m.data(), 3, rows.data(), out.data()});
  EXPECT_EQ(out, (std::vector<float>{4, 5, 6, 1, 2, 3}));
}

TEST(ElementwiseOpsTest, TransposeSquaresTransposesEveryItemAndKeepsNaN) {
  // Two 3×3 items; the second holds a NaN and a signed zero, which a copy must keep.
  const std::vector<float> in{1, 2, 3, 4, 5, 6, 7, 8, 9, -0.0f, kNan, 12, 13, 14, 15, 16, 17, 18};
  std::vector<float> out(in.size(), 99.0f);
  for_each_row(2 * 3, 3, TransposeSquares{in.data(), out.data(), 3});
  for (std::int64_t item = 0; item < 2; ++item) {
    for (std::int64_t i = 0; i < 3; ++i) {
      for (std::int64_t j = 0; j < 3; ++j) {
        const float want = in[static_cast<std::size_t>(item * 9 + j * 3 + i)];
        const float got = out[static_cast<std::size_t>(item * 9 + i * 3 + j)];
        EXPECT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want))
            << "item " << item << " (" << i << ", " << j << ")";
      }
    }
  }
}

TEST(SolverBatchesTest, SmallOrdersBatchWithinTheSolversLimitLargerOnesOneByOne) {
  EXPECT_EQ(eigh_batch_size(32, 400), 400);  // the batched path: the whole count
  EXPECT_EQ(eigh_batch_size(1, 7), 7);
  EXPECT_EQ(eigh_batch_size(33, 400), 1);  // above it: one matrix per call, whatever count
  EXPECT_EQ(eigh_batch_size(5120, 168), 1);
  EXPECT_EQ(eigh_batch_size(7, 0), 0);  // nothing to solve
  EXPECT_EQ(eigh_batch_size(0, 5), 0);
  // The size limit, with a small limit standing in for INT32_MAX: 16 elements a 4×4 matrix.
  EXPECT_EQ(eigh_batch_size(4, 10, 40), 2);
  EXPECT_EQ(eigh_batch_size(4, 10, 15), 1);
  EXPECT_EQ(eigh_batch_size(32, 3'000'000), kSolverBatchElementLimit / (32 * 32));
  EXPECT_LE(32LL * 32 * eigh_batch_size(32, 3'000'000), kSolverBatchElementLimit);
}

TEST(ElementwiseOpsTest, ScaleColumnsInverseRootAgainstDoubleAndNaN) {
  SCOPED_TRACE(seed_trace());
  auto rng = make_rng(10);
  constexpr std::int64_t kD = 9, kCount = 2;
  const std::vector<float> q = uniform(rng, kD * kD * kCount, -1, 1);
  std::vector<float> w = uniform(rng, kD * kCount, -0.1f, 10.0f);
  w[3] = kNan;
  std::vector<float> out(q.size());
  const float eps = 1e-6f;
  for_each_row(kD * kCount, kD,
               ScaleColumnsInverseRoot{q.data(), w.data(), out.data(), kD, eps, 2});
  for (std::int64_t row = 0; row < kD * kCount; ++row) {
    for (std::int64_t j = 0; j < kD; ++j) {
      const auto at = static_cast<std::size_t>(row * kD + j);
      const float lambda = w[static_cast<std::size_t>(row / kD * kD + j)];
      if (std::isnan(lambda)) {
        ASSERT_TRUE(std::isnan(out[at])) << "column of a NaN eigenvalue";
        continue;
      }
      const double e = q[at] * std::pow(std::max(d(lambda), 0.0) + d(eps), -0.25);
      // the shifted eigenvalue, two roots, the division and the product: c = 5.
      EXPECT_NEAR_BOUND(out[at], e, 5 * kU * std::fabs(e));
    }
  }
  // In place (out aliases q) gives the same numbers.
  std::vector<float> in_place = q;
  for_each_row(kD * kCount, kD,
               ScaleColumnsInverseRoot{in_place.data(), w.data(), in_place.data(), kD, eps, 2});
  for (std::size_t i = 0; i < q.size(); ++i) {
    ASSERT_EQ(bits_of(in_place[i]), bits_of(out[i])) << i;
  }
}

}  // namespace
}  // namespace canzona::backend::ops
