// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Reductions and fused element-wise kernels: hand-picked inputs whose results are exact in
// binary (compared bit for bit), then random inputs against double-precision loops.
//
// Random-input tolerance: a running error bound |got − exact| ≤ c·u·M, u = 2^-24, where M is
// the expression evaluated on absolute values (so cancellation cannot hide error) and c counts
// the fp32 roundings on the longest path, rounded up (stated per kernel). bf16 stores add one
// rounding of u_bf16 = 2^-8 relative.
#include "cpu_backend.hpp"
#include "numerics.hpp"

#include <canzona/core/error.hpp>
#include "test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace canzona::backend::cpu {
namespace {

using ops::bf16_to_float;
using ops::float_to_bf16;

using test::kU;
using test::kUBf16;

std::vector<std::uint16_t> to_bf16(const std::vector<float>& x) {
  std::vector<std::uint16_t> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = float_to_bf16(x[i]);
  return out;
}

std::vector<float> widen(const std::vector<std::uint16_t>& x) {
  std::vector<float> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = bf16_to_float(x[i]);
  return out;
}

#define EXPECT_WITHIN(got, expected, tol) \
  EXPECT_LE(std::fabs(static_cast<double>(got) - (expected)), (tol)) << "expected " << (expected)

// ---- reductions -----------------------------------------------------------------------------

TEST(CpuReductionTest, SumSquaresMatchesDoubleLoop) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(30);
  CpuBackend backend;
  // Sizes straddle the 8-lane and 1024-element blocking; n = 0 gives 0.
  for (std::int64_t n : {0, 1, 7, 1024, 5001}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    constexpr std::int64_t kCount = 3;
    const std::vector<float> x = test::random_floats(rng, static_cast<std::size_t>(n * kCount));
    const std::vector<std::uint16_t> xb = to_bf16(x);
    const std::vector<float> xw = widen(xb);
    Buffer xf_buf = test::to_backend(backend, x);
    Buffer xb_buf = test::to_backend(backend, xb);
    Buffer out_f = backend.allocate(kCount * sizeof(float));
    Buffer out_b = backend.allocate(kCount * sizeof(float));
    backend.sum_squares(xf_buf.data(), ElementType::kFloat32, n, kCount, out_f.as<float>());
    backend.sum_squares(xb_buf.data(), ElementType::kBFloat16, n, kCount, out_b.as<float>());
    const auto got_f = test::to_host<float>(backend, out_f, kCount);
    const auto got_b = test::to_host<float>(backend, out_b, kCount);
    for (std::int64_t item = 0; item < kCount; ++item) {
      double ef = 0.0, eb = 0.0;
      for (std::int64_t i = 0; i < n; ++i) {
        ef += static_cast<double>(x[item * n + i]) * x[item * n + i];
        eb += static_cast<double>(xw[item * n + i]) * xw[item * n + i];
      }
      // Positive terms: lanes of ≤ 128 terms, 8 lanes, a square and the final rounding: c = 256.
      EXPECT_WITHIN(got_f[item], ef, 256 * kU * ef);
      EXPECT_WITHIN(got_b[item], eb, 256 * kU * eb);
    }
  }
}

TEST(CpuReductionTest, CountNonfiniteAccumulates) {
  CpuBackend backend;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{
      1.0f,  std::numeric_limits<float>::quiet_NaN(),    inf,
      -inf,  std::numeric_limits<float>::max(),          std::numeric_limits<float>::denorm_min(),
      -0.0f, std::numeric_limits<float>::signaling_NaN()};
  Buffer x_buf = test::to_backend(backend, x);
  Buffer counter = test::to_backend(backend, std::vector<int>{5});
  backend.count_nonfinite(x_buf.as<float>(), static_cast<std::int64_t>(x.size()),
                          counter.as<int>());
  EXPECT_EQ(test::to_host<int>(backend, counter, 1)[0], 9);
  backend.count_nonfinite(x_buf.as<float>(), 3, counter.as<int>());
  EXPECT_EQ(test::to_host<int>(backend, counter, 1)[0], 11);
}

// ---- hand-picked, exactly representable results ---------------------------------------------

TEST(CpuElementwiseTest, MuonMomentumExact) {
  CpuBackend backend;
  for (bool nesterov : {false, true}) {
    SCOPED_TRACE(nesterov ? "nesterov" : "plain");
    Buffer buf = test::to_backend(backend, std::vector<float>{1, -2});
    Buffer g = test::to_backend(backend, std::vector<float>{3, 4});
    Buffer out = backend.allocate(2 * sizeof(float));
    backend.muon_momentum(buf.as<float>(), g.as<float>(), out.data(), ElementType::kFloat32, 2,
                          0.5f, nesterov);
    // buf = 0.5·buf + 0.5·g = [2, 1]; nesterov out = 0.5·g + 0.5·buf = [2.5, 2.5].
    EXPECT_EQ(test::to_host<float>(backend, buf, 2), (std::vector<float>{2, 1}));
    EXPECT_EQ(test::to_host<float>(backend, out, 2),
              nesterov ? (std::vector<float>{2.5f, 2.5f}) : (std::vector<float>{2, 1}));
  }
  // bf16 out rounds once: 0.5·1 + 0.5·(1 + 2^-7 + 2^-9) = 1 + 2^-8 + 2^-10 → 1 + 2^-7.
  Buffer buf = test::to_backend(backend, std::vector<float>{1});
  Buffer g = test::to_backend(backend, std::vector<float>{1.0f + 0x1p-7f + 0x1p-9f});
  Buffer out = backend.allocate(2);
  backend.muon_momentum(buf.as<float>(), g.as<float>(), out.data(), ElementType::kBFloat16, 1, 0.5f,
                        false);
  EXPECT_EQ(test::to_host<float>(backend, buf, 1)[0], 1.0f + 0x1p-8f + 0x1p-10f);
  EXPECT_EQ(test::to_host<std::uint16_t>(backend, out, 1)[0], float_to_bf16(1.0f + 0x1p-7f));
}

TEST(CpuElementwiseTest, NormalizeExact) {
  CpuBackend backend;
  // Item 0: sqrt(16) = 4 > eps; item 1: sqrt(0) < eps = 0.5, so it divides by eps.
  const std::vector<float> x{4, -8, 2, 1, 0.5f, 0, -0.25f, 1};
  const std::vector<float> expected{1, -2, 0.5f, 0.25f, 1, 0, -0.5f, 2};
  Buffer sumsq = test::to_backend(backend, std::vector<float>{16, 0});
  Buffer xf = test::to_backend(backend, x);
  backend.normalize(xf.data(), ElementType::kFloat32, 4, 2, sumsq.as<float>(), 0.5f);
  EXPECT_EQ(test::to_host<float>(backend, xf, 8), expected);
  Buffer xb = test::to_backend(backend, to_bf16(x));
  backend.normalize(xb.data(), ElementType::kBFloat16, 4, 2, sumsq.as<float>(), 0.5f);
  EXPECT_EQ(test::to_host<std::uint16_t>(backend, xb, 8), to_bf16(expected));
}

TEST(CpuElementwiseTest, NormalizeRmsExact) {
  CpuBackend backend;
  // eps + sqrt(32 / 2) = 4 + 4 = 8.
  Buffer x = test::to_backend(backend, std::vector<float>{8, -4});
  Buffer sumsq = test::to_backend(backend, std::vector<float>{32});
  backend.normalize_rms(x.as<float>(), 2, sumsq.as<float>(), 4.0f);
  EXPECT_EQ(test::to_host<float>(backend, x, 2), (std::vector<float>{1, -0.5f}));
}

TEST(CpuElementwiseTest, AxpbyExactIncludingAliasAndBf16) {
  CpuBackend backend;
  Buffer y = test::to_backend(backend, std::vector<float>{1, 2});
  Buffer x = test::to_backend(backend, std::vector<float>{3, 4});
  backend.axpby(y.data(), x.data(), ElementType::kFloat32, 2, 2.0f, 0.5f);
  EXPECT_EQ(test::to_host<float>(backend, y, 2), (std::vector<float>{6.5f, 9}));
  backend.axpby(y.data(), y.data(), ElementType::kFloat32, 2, 2.0f, 1.0f);  // x == y
  EXPECT_EQ(test::to_host<float>(backend, y, 2), (std::vector<float>{19.5f, 27}));

  // bf16: 1·(1 + 2^-7) + 1·2^-8 = 1 + 3·2^-8 is a tie → 1 + 2^-6 (even).
  Buffer yb = test::to_backend(backend, to_bf16({1.0f + 0x1p-7f}));
  Buffer xb = test::to_backend(backend, to_bf16({0x1p-8f}));
  backend.axpby(yb.data(), xb.data(), ElementType::kBFloat16, 1, 1.0f, 1.0f);
  EXPECT_EQ(test::to_host<std::uint16_t>(backend, yb, 1)[0], float_to_bf16(1.0f + 0x1p-6f));
}

TEST(CpuElementwiseTest, EmaAndEmaSquareExact) {
  CpuBackend backend;
  Buffer m = test::to_backend(backend, std::vector<float>{1, 2});
  Buffer g = test::to_backend(backend, std::vector<float>{3, -2});
  backend.ema(m.as<float>(), g.as<float>(), 2, 0.75f);  // 0.75·m + 0.25·g
  EXPECT_EQ(test::to_host<float>(backend, m, 2), (std::vector<float>{1.5f, 1.0f}));
  Buffer v = test::to_backend(backend, std::vector<float>{1, 2});
  Buffer g2 = test::to_backend(backend, std::vector<float>{2, -4});
  backend.ema_square(v.as<float>(), g2.as<float>(), 2, 0.5f);  // 0.5·v + 0.5·g²
  EXPECT_EQ(test::to_host<float>(backend, v, 2), (std::vector<float>{2.5f, 9.0f}));
}

TEST(CpuElementwiseTest, AdamDirectionAndDivideSqrtEpsExactWithAliasing) {
  CpuBackend backend;
  // eps 0: (2 / 0.5) / sqrt(4 / 0.25) = 4 / 4. eps 1, in place: 4 / (4 + 1) rounds like the
  // literal 0.8f; (−3 / 0.5) / (sqrt(1 / 0.25) + 1) = −6 / 3.
  Buffer m = test::to_backend(backend, std::vector<float>{2, -3});
  Buffer v = test::to_backend(backend, std::vector<float>{4, 1});
  Buffer out = backend.allocate(2 * sizeof(float));
  backend.adam_direction(m.as<float>(), v.as<float>(), out.as<float>(), 1, 0.5f, 0.25f, 0.0f);
  EXPECT_EQ(test::to_host<float>(backend, out, 1)[0], 1.0f);
  backend.adam_direction(m.as<float>(), v.as<float>(), m.as<float>(), 2, 0.5f, 0.25f, 1.0f);
  EXPECT_EQ(test::to_host<float>(backend, m, 2), (std::vector<float>{0.8f, -2.0f}));

  // 3 / (sqrt(4) + 1) = 1, in place.
  Buffer x = test::to_backend(backend, std::vector<float>{3, -10});
  Buffer v2 = test::to_backend(backend, std::vector<float>{4, 16});
  backend.divide_sqrt_eps(x.as<float>(), v2.as<float>(), x.as<float>(), 2, 1.0f);
  EXPECT_EQ(test::to_host<float>(backend, x, 2), (std::vector<float>{1, -2}));
}

TEST(CpuElementwiseTest, ApplyUpdateBothOrdersExact) {
  CpuBackend backend;
  // lr = 0.5, wd = 0.5 → decay 0.75; scale 2 → step 1.
  Buffer u = test::to_backend(backend, std::vector<float>{1, -1});
  Buffer p = test::to_backend(backend, std::vector<float>{1, 2});
  backend.apply_update(p.as<float>(), u.data(), ElementType::kFloat32, 2, 1, 0.5f, 0.5f, 2.0f,
                       DecayOrder::kBeforeUpdate, nullptr, nullptr);
  EXPECT_EQ(test::to_host<float>(backend, p, 2), (std::vector<float>{-0.25f, 2.5f}));
  Buffer q = test::to_backend(backend, std::vector<float>{1, 2});
  backend.apply_update(q.as<float>(), u.data(), ElementType::kFloat32, 2, 1, 0.5f, 0.5f, 2.0f,
                       DecayOrder::kAfterUpdate, nullptr, nullptr);
  EXPECT_EQ(test::to_host<float>(backend, q, 2), (std::vector<float>{0.0f, 2.25f}));

  // bf16 u is widened exactly.
  Buffer ub = test::to_backend(backend, to_bf16({1, -1}));
  Buffer pb = test::to_backend(backend, std::vector<float>{1, 2});
  backend.apply_update(pb.as<float>(), ub.data(), ElementType::kBFloat16, 2, 1, 0.5f, 0.5f, 2.0f,
                       DecayOrder::kBeforeUpdate, nullptr, nullptr);
  EXPECT_EQ(test::to_host<float>(backend, pb, 2), (std::vector<float>{-0.25f, 2.5f}));
}

TEST(CpuElementwiseTest, ApplyUpdateNormRatioPerItem) {
  CpuBackend backend;
  // Item 0: s = 0.25·sqrt(16)/sqrt(4) = 0.5; item 1: 0/max(0, 1e-30) = 0 → decay only.
  Buffer u = test::to_backend(backend, std::vector<float>{2, -4, 7, 7});
  Buffer p = test::to_backend(backend, std::vector<float>{1, 1, 1, -2});
  Buffer num = test::to_backend(backend, std::vector<float>{16, 0});
  Buffer den = test::to_backend(backend, std::vector<float>{4, 0});
  backend.apply_update(p.as<float>(), u.data(), ElementType::kFloat32, 2, 2, 1.0f, 0.5f, 0.25f,
                       DecayOrder::kBeforeUpdate, num.as<float>(), den.as<float>());
  // decay 0.5, step 0.5: [0.5 − 1, 0.5 + 2, 0.5, −1].
  EXPECT_EQ(test::to_host<float>(backend, p, 4), (std::vector<float>{-0.5f, 2.5f, 0.5f, -1.0f}));
  EXPECT_THROW(
      backend.apply_update(p.as<float>(), u.data(), ElementType::kFloat32, 2, 2, 1.0f, 0.5f, 0.25f,
                           DecayOrder::kBeforeUpdate, num.as<float>(), nullptr),
      Error);
}

TEST(CpuElementwiseTest, AdamwStepExact) {
  CpuBackend backend;
  // m = 0.5·0 + 0.5·2 = 1; v = 0.75·0 + 0.25·4 = 1; m̂ = 2, sqrt(v̂) = 2 → direction 1;
  // p = 1·(1 − 0.25) − 0.5·1 = 0.25.
  Buffer p = test::to_backend(backend, std::vector<float>{1});
  Buffer g = test::to_backend(backend, std::vector<float>{2});
  Buffer m = backend.allocate(sizeof(float));
  Buffer v = backend.allocate(sizeof(float));
  backend.adamw_step(p.as<float>(), g.as<float>(), m.as<float>(), v.as<float>(), 1, 0.5f, 0.5f,
                     0.75f, 0.0f, 0.5f, 0.5f, 0.25f);
  EXPECT_EQ(test::to_host<float>(backend, m, 1)[0], 1.0f);
  EXPECT_EQ(test::to_host<float>(backend, v, 1)[0], 1.0f);
  EXPECT_EQ(test::to_host<float>(backend, p, 1)[0], 0.25f);
}

// ---- random inputs against double loops -----------------------------------------------------

TEST(CpuElementwiseTest, FusedKernelsMatchDoubleLoops) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(31);
  CpuBackend backend;
  constexpr std::int64_t kN = 999;
  const auto n = static_cast<std::size_t>(kN);
  const std::vector<float> g = test::random_floats(rng, n);
  const std::vector<float> buf0 = test::random_floats(rng, n);
  const std::vector<float> p0 = test::random_floats(rng, n);
  const std::vector<float> v0 = test::random_floats(rng, n, 0.0f, 1.0f);
  const float mu = 0.95f, beta1 = 0.9f, beta2 = 0.999f, lr = 0.01f, wd = 0.1f, eps = 1e-8f;
  const float bias1 = 1.0f - 0.9f * 0.9f, bias2 = 1.0f - 0.999f * 0.999f;

  // muon_momentum, nesterov, fp32 and bf16 out. Longest path: (1−μ)·g + μ·(μ·buf + (1−μ)·g), c = 6.
  for (ElementType out_type : {ElementType::kFloat32, ElementType::kBFloat16}) {
    Buffer buf = test::to_backend(backend, buf0);
    Buffer gb = test::to_backend(backend, g);
    Buffer out = backend.allocate(n * sizeof(float));
    backend.muon_momentum(buf.as<float>(), gb.as<float>(), out.data(), out_type, kN, mu, true);
    const auto got_buf = test::to_host<float>(backend, buf, n);
    std::vector<float> got_out(n);
    if (out_type == ElementType::kFloat32) {
      got_out = test::to_host<float>(backend, out, n);
    } else {
      got_out = widen(test::to_host<std::uint16_t>(backend, out, n));
    }
    for (std::size_t i = 0; i < n; ++i) {
      const double b = mu * static_cast<double>(buf0[i]) + (1.0 - mu) * g[i];
      const double mb = std::fabs(mu * buf0[i]) + std::fabs((1.0 - mu) * g[i]);
      const double o = (1.0 - mu) * g[i] + mu * b;
      const double mo = std::fabs((1.0 - mu) * g[i]) + mu * mb;
      EXPECT_WITHIN(got_buf[i], b, 3 * kU * mb);
      double tol = 6 * kU * mo;
      if (out_type == ElementType::kBFloat16) tol += kUBf16 * (std::fabs(o) + tol);
      EXPECT_WITHIN(got_out[i], o, tol);
    }
  }

  // adamw_step: m, v (c = 3), p (c = 16 over |p·decay| + lr·|direction|, with m's own error
  // carried through the division).
  {
    Buffer p = test::to_backend(backend, p0);
    Buffer gb = test::to_backend(backend, g);
    Buffer m = test::to_backend(backend, buf0);
    Buffer v = test::to_backend(backend, v0);
    backend.adamw_step(p.as<float>(), gb.as<float>(), m.as<float>(), v.as<float>(), kN, lr, beta1,
                       beta2, eps, wd, bias1, bias2);
    const auto gp = test::to_host<float>(backend, p, n);
    const auto gm = test::to_host<float>(backend, m, n);
    const auto gv = test::to_host<float>(backend, v, n);
    for (std::size_t i = 0; i < n; ++i) {
      const double m1 = beta1 * static_cast<double>(buf0[i]) + (1.0 - beta1) * g[i];
      const double mm = std::fabs(beta1 * buf0[i]) + std::fabs((1.0 - beta1) * g[i]);
      const double v1 = beta2 * static_cast<double>(v0[i]) + (1.0 - beta2) * g[i] * g[i];
      const double den = std::sqrt(v1 / bias2) + eps;
      const double dir = (m1 / bias1) / den;
      const double decay = 1.0 - static_cast<double>(lr) * wd;
      const double p1 = p0[i] * decay - lr * dir;
      EXPECT_WITHIN(gm[i], m1, 3 * kU * mm);
      EXPECT_WITHIN(gv[i], v1, 4 * kU * v1);
      const double tol = 16 * kU * (std::fabs(p0[i] * decay) + lr * std::fabs(dir)) +
                         lr * 3 * kU * mm / bias1 / den;
      EXPECT_WITHIN(gp[i], p1, tol);
    }
  }

  // apply_update with the norm ratio, bf16 u, both orders: c = 12 over |p·decay| + |step·u|.
  for (DecayOrder order : {DecayOrder::kBeforeUpdate, DecayOrder::kAfterUpdate}) {
    const std::vector<std::uint16_t> ub = to_bf16(g);
    const std::vector<float> uw = widen(ub);
    const std::vector<float> num{2.5f, 0.75f, 9.0f};
    const std::vector<float> den{0.5f, 3.0f, 1e-3f};
    constexpr std::int64_t kItem = kN / 3;
    Buffer p = test::to_backend(backend, p0);
    Buffer u = test::to_backend(backend, ub);
    Buffer nb = test::to_backend(backend, num);
    Buffer db = test::to_backend(backend, den);
    backend.apply_update(p.as<float>(), u.data(), ElementType::kBFloat16, kItem, 3, lr, wd, 0.2f,
                         order, nb.as<float>(), db.as<float>());
    const auto gp = test::to_host<float>(backend, p, n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t item = i / kItem;
      const double s = 0.2 * std::sqrt(static_cast<double>(num[item])) / std::sqrt(den[item]);
      const double step = lr * s;
      const double decay = 1.0 - static_cast<double>(lr) * wd;
      const double expected = order == DecayOrder::kBeforeUpdate ? p0[i] * decay - step * uw[i]
                                                                 : (p0[i] - step * uw[i]) * decay;
      EXPECT_WITHIN(gp[i], expected, 12 * kU * (std::fabs(p0[i]) + std::fabs(step * uw[i])));
    }
  }

  // divide_sqrt_eps and adam_direction: no cancellation, relative c = 4 and c = 6.
  {
    Buffer x = test::to_backend(backend, g);
    Buffer v = test::to_backend(backend, v0);
    Buffer out = backend.allocate(n * sizeof(float));
    backend.divide_sqrt_eps(x.as<float>(), v.as<float>(), out.as<float>(), kN, 1e-3f);
    const auto got = test::to_host<float>(backend, out, n);
    backend.adam_direction(x.as<float>(), v.as<float>(), out.as<float>(), kN, bias1, bias2, eps);
    const auto got_dir = test::to_host<float>(backend, out, n);
    for (std::size_t i = 0; i < n; ++i) {
      const double e = g[i] / (std::sqrt(static_cast<double>(v0[i])) + 1e-3f);
      EXPECT_WITHIN(got[i], e, 4 * kU * std::fabs(e));
      const double d = (g[i] / static_cast<double>(bias1)) /
                       (std::sqrt(v0[i] / static_cast<double>(bias2)) + eps);
      EXPECT_WITHIN(got_dir[i], d, 6 * kU * std::fabs(d));
    }
  }

  // ema / ema_square (c = 3, c = 4), axpby (c = 3), normalize / normalize_rms (c = 3, relative).
  {
    Buffer m = test::to_backend(backend, buf0);
    Buffer v = test::to_backend(backend, v0);
    Buffer y = test::to_backend(backend, p0);
    Buffer gb = test::to_backend(backend, g);
    backend.ema(m.as<float>(), gb.as<float>(), kN, beta1);
    backend.ema_square(v.as<float>(), gb.as<float>(), kN, beta2);
    backend.axpby(y.data(), gb.data(), ElementType::kFloat32, kN, 0.3f, -1.7f);
    const auto gm = test::to_host<float>(backend, m, n);
    const auto gv = test::to_host<float>(backend, v, n);
    const auto gy = test::to_host<float>(backend, y, n);
    for (std::size_t i = 0; i < n; ++i) {
      const double em = beta1 * static_cast<double>(buf0[i]) + (1.0 - beta1) * g[i];
      EXPECT_WITHIN(gm[i], em,
                    3 * kU * (std::fabs(beta1 * buf0[i]) + std::fabs((1.0 - beta1) * g[i])));
      const double ev = beta2 * static_cast<double>(v0[i]) + (1.0 - beta2) * g[i] * g[i];
      EXPECT_WITHIN(gv[i], ev, 4 * kU * ev);
      const double ey = 0.3f * static_cast<double>(g[i]) - 1.7f * static_cast<double>(p0[i]);
      EXPECT_WITHIN(gy[i], ey, 3 * kU * (std::fabs(0.3f * g[i]) + std::fabs(1.7f * p0[i])));
    }

    Buffer x = test::to_backend(backend, g);
    Buffer xr = test::to_backend(backend, g);
    Buffer sumsq = test::to_backend(backend, std::vector<float>{7.25f});
    backend.normalize(x.data(), ElementType::kFloat32, kN, 1, sumsq.as<float>(), 1e-7f);
    backend.normalize_rms(xr.as<float>(), kN, sumsq.as<float>(), 1e-3f);
    const auto gx = test::to_host<float>(backend, x, n);
    const auto gr = test::to_host<float>(backend, xr, n);
    for (std::size_t i = 0; i < n; ++i) {
      const double e = g[i] / std::sqrt(7.25);
      EXPECT_WITHIN(gx[i], e, 3 * kU * std::fabs(e));
      const double er = g[i] / (1e-3f + std::sqrt(7.25 / kN));
      EXPECT_WITHIN(gr[i], er, 5 * kU * std::fabs(er));
    }
  }
}

TEST(CpuElementwiseTest, ZeroLengthCallsTouchNothing) {
  CpuBackend backend;
  Buffer x = test::to_backend(backend, std::vector<float>{42});
  Buffer s = test::to_backend(backend, std::vector<float>{0});
  backend.normalize_rms(x.as<float>(), 0, s.as<float>(), 0.0f);
  backend.axpby(x.data(), x.data(), ElementType::kFloat32, 0, 2.0f, 2.0f);
  backend.ema(x.as<float>(), x.as<float>(), 0, 0.5f);
  EXPECT_EQ(test::to_host<float>(backend, x, 1)[0], 42.0f);
}

// ---- batched operations over items anywhere ----------------------------------------------------

/// The batched form over listed items must give, item by item, the bits of one call per item,
/// count one operation, and refuse operands with different item counts.
TEST(CpuBatchedTest, ListedItemsEqualOneCallPerItemAndCountOnce) {
  SCOPED_TRACE(test::seed_trace());
  constexpr std::int64_t kItems = 5, kN = 37;
  CpuBackend batched, single;
  struct Arrays {
    std::vector<Buffer> p, g, m, v, out, ratio;
  };
  auto make = [&](CpuBackend& be) {
    auto seeded = test::make_rng(61);
    Arrays a;
    for (std::int64_t i = 0; i < kItems; ++i) {
      a.p.push_back(test::to_backend(be, test::random_floats(seeded, kN)));
      a.g.push_back(test::to_backend(be, test::random_floats(seeded, kN)));
      a.m.push_back(test::to_backend(be, test::random_floats(seeded, kN)));
      a.v.push_back(test::to_backend(be, test::random_floats(seeded, kN, 0.0f, 1.0f)));
      a.out.push_back(be.allocate(kN * sizeof(float)));
    }
    a.ratio.push_back(test::to_backend(be, test::random_floats(seeded, kItems, 0.5f, 2.0f)));
    a.ratio.push_back(test::to_backend(be, test::random_floats(seeded, kItems, 0.5f, 2.0f)));
    return a;
  };
  Arrays b = make(batched);
  Arrays o = make(single);
  auto list = [](const std::vector<Buffer>& buffers) {
    std::vector<float*> l;
    for (const Buffer& x : buffers) l.push_back(x.as<float>());
    return l;
  };
  auto clist = [](const std::vector<Buffer>& buffers) {
    std::vector<const float*> l;
    for (const Buffer& x : buffers) l.push_back(x.as<float>());
    return l;
  };
  const auto bp = list(b.p), bm = list(b.m), bv = list(b.v), bout = list(b.out);
  const auto bg = clist(b.g), bmc = clist(b.m), bvc = clist(b.v);
  std::vector<void*> bout_bytes(bout.begin(), bout.end());
  std::vector<const void*> bout_src(bout.begin(), bout.end());
  Buffer counter_b = test::to_backend(batched, std::vector<int>{0});
  const OpCounts before = batched.op_counts();
  batched.muon_momentum(std::span<float* const>(bm), std::span<const float* const>(bg),
                        std::span<void* const>(bout_bytes), ElementType::kFloat32, kN, 0.9f, true);
  batched.ema(std::span<float* const>(bv), std::span<const float* const>(bg), kN, 0.99f);
  batched.ema_square(std::span<float* const>(bv), std::span<const float* const>(bg), kN, 0.99f);
  batched.adam_direction(std::span<const float* const>(bmc), std::span<const float* const>(bvc),
                         std::span<float* const>(bout), kN, 0.5f, 0.25f, 1e-8f);
  batched.divide_sqrt_eps(std::span<const float* const>(bmc), std::span<const float* const>(bvc),
                          std::span<float* const>(bm), kN, 1e-8f);
  batched.apply_update(std::span<float* const>(bp), std::span<const void* const>(bout_src),
                       ElementType::kFloat32, kN, 0.01f, 0.1f, 1.5f, DecayOrder::kBeforeUpdate,
                       b.ratio[0].as<float>(), b.ratio[1].as<float>());
  batched.normalize_rms(std::span<float* const>(bout), kN, b.ratio[0].as<float>(), 1e-6f);
  batched.adamw_step(std::span<float* const>(bp), std::span<const float* const>(bg),
                     std::span<float* const>(bm), std::span<float* const>(bv), kN, 1e-3f, 0.9f,
                     0.95f, 1e-8f, 0.1f, 0.19f, 0.0975f);
  batched.count_nonfinite(std::span<const float* const>(bg), kN, counter_b.as<int>());
  EXPECT_EQ((batched.op_counts() - before).operations, 9U) << "one operation per batched call";

  for (std::int64_t i = 0; i < kItems; ++i) {
    const auto u = static_cast<std::size_t>(i);
    float* p = o.p[u].as<float>();
    float* m = o.m[u].as<float>();
    float* v = o.v[u].as<float>();
    float* out = o.out[u].as<float>();
    const float* g = o.g[u].as<float>();
    single.muon_momentum(m, g, out, ElementType::kFloat32, kN, 0.9f, true);
    single.ema(v, g, kN, 0.99f);
    single.ema_square(v, g, kN, 0.99f);
    single.adam_direction(m, v, out, kN, 0.5f, 0.25f, 1e-8f);
    single.divide_sqrt_eps(m, v, m, kN, 1e-8f);
    single.apply_update(p, out, ElementType::kFloat32, kN, 1, 0.01f, 0.1f, 1.5f,
                        DecayOrder::kBeforeUpdate, o.ratio[0].as<float>() + i,
                        o.ratio[1].as<float>() + i);
    single.normalize_rms(out, kN, o.ratio[0].as<float>() + i, 1e-6f);
    single.adamw_step(p, g, m, v, kN, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, 0.19f, 0.0975f);
  }
  for (std::size_t i = 0; i < static_cast<std::size_t>(kItems); ++i) {
    for (const auto* pair : {&b.p, &b.m, &b.v, &b.out}) {
      const std::vector<Buffer>& mine = *pair;
      const std::vector<Buffer>& theirs = pair == &b.p   ? o.p
                                          : pair == &b.m ? o.m
                                          : pair == &b.v ? o.v
                                                         : o.out;
      EXPECT_EQ(std::memcmp(mine[i].data(), theirs[i].data(), kN * sizeof(float)), 0)
          << "item " << i;
    }
  }
  EXPECT_EQ(test::to_host<int>(batched, counter_b, 1)[0], 0);

  // Operands with different item counts are refused before anything runs.
  EXPECT_THROW(batched.ema(std::span<float* const>(bv), bg[0], kN, 0.5f), Error);
}

TEST(CpuBatchedTest, BatchedCopyOfListedAndBackToBackItems) {
  CpuBackend backend;
  std::vector<Buffer> items;
  std::vector<const void*> sources;
  for (int i = 0; i < 4; ++i) {
    items.push_back(test::to_backend(backend, std::vector<float>{float(i), float(10 * i)}));
    sources.push_back(items.back().data());
  }
  Buffer packed = backend.allocate(8 * sizeof(float));
  backend.copy(Items<void>(packed.data(), 4, 2 * sizeof(float)),
               std::span<const void* const>(sources), 2 * sizeof(float));
  EXPECT_EQ(test::to_host<float>(backend, packed, 8),
            (std::vector<float>{0, 0, 1, 10, 2, 20, 3, 30}));
}

}  // namespace
}  // namespace canzona::backend::cpu
