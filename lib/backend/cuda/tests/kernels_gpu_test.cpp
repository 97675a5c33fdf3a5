// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// GPU tests of the cuda backend's memory, conversions, reductions, fused element-wise kernels
// and small-matrix helpers, each against a double-precision loop on the same random inputs.
#include "backend_test_util.hpp"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace canzona::backend::test {
namespace {

constexpr double kRtol = 2e-6;  // a few fp32 roundings per element
constexpr double kAtol = 1e-6;
constexpr double kBf16Rtol = 1.0 / 128.0;  // one bf16 ulp: the fp32 value may round either way

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

using CudaBackendGpu = CudaBackendTest;

// ---- memory and data movement ---------------------------------------------------------------

TEST_F(CudaBackendGpu, StreamIsOwnedAndNonBlocking) {
  SCOPED_TRACE(trace());
  EXPECT_EQ(be().name(), "cuda");
  ASSERT_NE(cuda().stream(), nullptr);
  unsigned flags = 0;
  ASSERT_EQ(cudaStreamGetFlags(cuda().stream(), &flags), cudaSuccess);
  EXPECT_EQ(flags & cudaStreamNonBlocking, static_cast<unsigned>(cudaStreamNonBlocking));
  EXPECT_EQ(cuda().device(), 0);
}

TEST_F(CudaBackendGpu, AllocateIsZeroFilledAndAligned) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 100000));
  Buffer b = be().allocate(n * sizeof(float));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % 256, 0U);
  EXPECT_EQ(b.bytes(), n * sizeof(float));
  const std::vector<float> host = get<float>(b, n);
  EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](float x) { return x == 0.0f; }));
  Buffer empty = be().allocate(0);
  EXPECT_EQ(empty.bytes(), 0U);
}

TEST_F(CudaBackendGpu, UploadCopyFillZeroDownload) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 50000));
  const std::vector<float> x = uniform(n);
  Buffer a = put(x);
  Buffer b = be().allocate(n * sizeof(float));
  be().copy(b.data(), a.data(), n * sizeof(float));
  be().fill_zero(a.data(), n / 2 * sizeof(float));
  const std::vector<float> got_b = get<float>(b, n);
  const std::vector<float> got_a = get<float>(a, n);
  EXPECT_EQ(got_b, x);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(got_a[i], i < n / 2 ? 0.0f : x[i]) << i;
  }
}

TEST_F(CudaBackendGpu, ConvertRoundsToNearestEven) {
  SCOPED_TRACE(trace());
  std::vector<float> x = uniform(static_cast<std::size_t>(pick(1000, 20000)), -100.0f, 100.0f);
  // Exact ties (low half 0x8000) must round to the even bf16 neighbour.
  for (std::size_t i = 0; i < x.size(); i += 7) {
    std::uint32_t u = 0;
    std::memcpy(&u, &x[i], sizeof(u));
    u = (u & 0xffff0000U) | 0x8000U;
    std::memcpy(&x[i], &u, sizeof(u));
  }
  Buffer src = put(x);
  Buffer half = be().allocate(x.size() * 2);
  Buffer back = be().allocate(x.size() * 4);
  Buffer same = be().allocate(x.size() * 4);
  be().convert(half.data(), ElementType::kBFloat16, src.data(), ElementType::kFloat32,
               static_cast<std::int64_t>(x.size()));
  be().convert(back.data(), ElementType::kFloat32, half.data(), ElementType::kBFloat16,
               static_cast<std::int64_t>(x.size()));
  be().convert(same.data(), ElementType::kFloat32, src.data(), ElementType::kFloat32,
               static_cast<std::int64_t>(x.size()));
  const std::vector<std::uint16_t> got_half = get<std::uint16_t>(half, x.size());
  const std::vector<float> got_back = get<float>(back, x.size());
  EXPECT_EQ(got_half, to_bf16(x));
  EXPECT_EQ(got_back, from_bf16(to_bf16(x)));
  EXPECT_EQ(get<float>(same, x.size()), x);
}

// ---- reductions -----------------------------------------------------------------------------

TEST_F(CudaBackendGpu, SumSquaresFp32AndBf16) {
  SCOPED_TRACE(trace());
  for (const std::int64_t n : {std::int64_t{1}, pick(2, 5000), pick(40000, 100000)}) {
    const std::int64_t count = pick(1, 4);
    SCOPED_TRACE("n=" + std::to_string(n) + " count=" + std::to_string(count));
    const std::vector<float> x = uniform(static_cast<std::size_t>(n * count));
    const std::vector<std::uint16_t> x16 = to_bf16(x);
    Buffer d32 = put(x);
    Buffer d16 = put(x16);
    Buffer out32 = be().allocate(static_cast<std::size_t>(count) * 4);
    Buffer out16 = be().allocate(static_cast<std::size_t>(count) * 4);
    be().sum_squares(d32.data(), ElementType::kFloat32, n, count, out32.as<float>());
    be().sum_squares(d16.data(), ElementType::kBFloat16, n, count, out16.as<float>());
    std::vector<double> want32(static_cast<std::size_t>(count));
    std::vector<double> want16(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < n * count; ++i) {
      want32[i / n] += static_cast<double>(x[i]) * x[i];
      const double h = from_bf16(x16[i]);
      want16[i / n] += h * h;
    }
    expect_close(get<float>(out32, count), want32, 1e-5, 0.0, "fp32 sum_squares");
    expect_close(get<float>(out16, count), want16, 1e-5, 0.0, "bf16 sum_squares");
  }
}

TEST_F(CudaBackendGpu, SumSquaresIsDeterministicOnLargeInputs) {
  SCOPED_TRACE(trace());
  const std::int64_t n = pick(3000000, 5000000);  // many chunks: exercises the two-pass path
  const std::vector<float> x = uniform(static_cast<std::size_t>(n));
  Buffer d = put(x);
  Buffer out = be().allocate(2 * sizeof(float));
  be().sum_squares(d.data(), ElementType::kFloat32, n, 1, out.as<float>());
  be().sum_squares(d.data(), ElementType::kFloat32, n, 1, out.as<float>() + 1);
  const std::vector<float> got = get<float>(out, 2);
  double want = 0.0;
  for (float v : x) {
    want += static_cast<double>(v) * v;
  }
  EXPECT_EQ(got[0], got[1]) << "two runs differ bitwise";
  EXPECT_NEAR(got[0], want, 1e-5 * want);
}

TEST_F(CudaBackendGpu, SumSquaresOfEmptyItemsIsZero) {
  SCOPED_TRACE(trace());
  const std::vector<float> ones = {1.0f, 1.0f, 1.0f};
  Buffer out = put(ones);
  be().sum_squares(nullptr, ElementType::kFloat32, 0, 3, out.as<float>());
  EXPECT_EQ(get<float>(out, 3), std::vector<float>(3, 0.0f));
}

TEST_F(CudaBackendGpu, CountNonfiniteAccumulates) {
  SCOPED_TRACE(trace());
  std::vector<float> x = uniform(static_cast<std::size_t>(pick(1000, 300000)));
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity()};
  int bad = 0;
  for (std::size_t i = 0; i < x.size(); i += static_cast<std::size_t>(pick(50, 500))) {
    x[i] = specials[bad % 3];
    ++bad;
  }
  Buffer d = put(x);
  const std::vector<int> start = {5};
  Buffer counter = put(start);
  be().count_nonfinite(d.as<float>(), static_cast<std::int64_t>(x.size()), counter.as<int>());
  be().count_nonfinite(d.as<float>(), static_cast<std::int64_t>(x.size()), counter.as<int>());
  EXPECT_EQ(get<int>(counter, 1)[0], 5 + 2 * bad);
}

TEST_F(CudaBackendGpu, ColumnDots) {
  SCOPED_TRACE(trace());
  for (const std::int64_t n : {std::int64_t{1}, pick(2, 100), std::int64_t{300}}) {
    const std::int64_t count = pick(1, 5);
    const std::vector<float> a = uniform(static_cast<std::size_t>(n * n * count));
    const std::vector<float> b = uniform(static_cast<std::size_t>(n * n * count));
    Buffer da = put(a);
    Buffer db = put(b);
    Buffer out = be().allocate(static_cast<std::size_t>(n * count) * 4);
    be().column_dots(da.as<float>(), db.as<float>(), n, count, out.as<float>());
    std::vector<double> want(static_cast<std::size_t>(n * count));
    for (std::int64_t i = 0; i < count; ++i) {
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t at = (i * n + r) * n + j;
          want[i * n + j] += static_cast<double>(a[at]) * b[at];
        }
      }
    }
    expect_close(get<float>(out, static_cast<std::size_t>(n * count)), want, 1e-5, 1e-5,
                 "column_dots n=" + std::to_string(n) + " count=" + std::to_string(count));
  }
}

// ---- fused element-wise kernels -------------------------------------------------------------

TEST_F(CudaBackendGpu, MuonMomentum) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 100000));
  const float mu = 0.95f;
  for (const bool nesterov : {false, true}) {
    for (const ElementType out_type : {ElementType::kFloat32, ElementType::kBFloat16}) {
      SCOPED_TRACE(std::string("nesterov=") + (nesterov ? "1" : "0") +
                   (out_type == ElementType::kBFloat16 ? " bf16" : " fp32"));
      const std::vector<float> buf = uniform(n);
      const std::vector<float> g = uniform(n);
      Buffer dbuf = put(buf);
      Buffer dg = put(g);
      Buffer out = be().allocate(n * element_size(out_type));
      be().muon_momentum(dbuf.as<float>(), dg.as<float>(), out.data(), out_type,
                         static_cast<std::int64_t>(n), mu, nesterov);
      std::vector<double> want_buf(n);
      std::vector<double> want_out(n);
      for (std::size_t i = 0; i < n; ++i) {
        want_buf[i] = static_cast<double>(mu) * buf[i] + (1.0 - mu) * g[i];
        want_out[i] = nesterov ? (1.0 - mu) * g[i] + mu * want_buf[i] : want_buf[i];
      }
      expect_close(get<float>(dbuf, n), want_buf, kRtol, kAtol, "buf");
      if (out_type == ElementType::kBFloat16) {
        expect_close(from_bf16(get<std::uint16_t>(out, n)), want_out, kBf16Rtol, kAtol, "out");
      } else {
        expect_close(get<float>(out, n), want_out, kRtol, kAtol, "out");
      }
    }
  }
}

TEST_F(CudaBackendGpu, NormalizeWithDeviceNorms) {
  SCOPED_TRACE(trace());
  const std::int64_t n = pick(1, 20000);
  const std::int64_t count = 3;
  const float eps = 1e-3f;
  for (const ElementType type : {ElementType::kFloat32, ElementType::kBFloat16}) {
    SCOPED_TRACE(type == ElementType::kBFloat16 ? "bf16" : "fp32");
    std::vector<float> x = uniform(static_cast<std::size_t>(n * count));
    // Item 2 is tiny, so max(norm, eps) picks eps there.
    for (std::int64_t i = 2 * n; i < 3 * n; ++i) {
      x[i] *= 1e-9f;
    }
    const bool b16 = type == ElementType::kBFloat16;
    const std::vector<float> xs = b16 ? from_bf16(to_bf16(x)) : x;
    const std::vector<std::uint16_t> x16 = to_bf16(x);
    Buffer d = b16 ? put(x16) : put(x);
    Buffer sumsq = be().allocate(count * 4);
    // No host sync between the reduction and its consumer: both are ordered on the stream.
    be().sum_squares(d.data(), type, n, count, sumsq.as<float>());
    be().normalize(d.data(), type, n, count, sumsq.as<float>(), eps);
    std::vector<double> want(xs.size());
    for (std::int64_t item = 0; item < count; ++item) {
      double ss = 0.0;
      for (std::int64_t i = 0; i < n; ++i) {
        ss += static_cast<double>(xs[item * n + i]) * xs[item * n + i];
      }
      const double denom = std::max(std::sqrt(ss), static_cast<double>(eps));
      for (std::int64_t i = 0; i < n; ++i) {
        want[item * n + i] = xs[item * n + i] / denom;
      }
    }
    const std::vector<float> got =
        b16 ? from_bf16(get<std::uint16_t>(d, xs.size())) : get<float>(d, xs.size());
    expect_close(got, want, b16 ? kBf16Rtol : 2e-5, 1e-12, "normalize");
  }
}

TEST_F(CudaBackendGpu, NormalizeRms) {
  SCOPED_TRACE(trace());
  const std::int64_t n = pick(1, 50000);
  const std::vector<float> x = uniform(static_cast<std::size_t>(n));
  const std::vector<float> ss = {static_cast<float>(pick(1, 1000))};
  Buffer d = put(x);
  Buffer dss = put(ss);
  be().normalize_rms(d.as<float>(), n, dss.as<float>(), 1e-8f);
  std::vector<double> want(x.size());
  const double denom = 1e-8 + std::sqrt(static_cast<double>(ss[0]) / static_cast<double>(n));
  for (std::size_t i = 0; i < x.size(); ++i) {
    want[i] = x[i] / denom;
  }
  expect_close(get<float>(d, x.size()), want, kRtol, 1e-12, "normalize_rms");
}

TEST_F(CudaBackendGpu, AxpbyFp32Bf16AndAliased) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 50000));
  const float alpha = 0.3f;
  const float beta = -1.7f;
  const std::vector<float> x = uniform(n);
  const std::vector<float> y = uniform(n);
  std::vector<double> want(n);
  std::vector<double> want_alias(n);
  std::vector<double> want16(n);
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = static_cast<double>(alpha) * x[i] + static_cast<double>(beta) * y[i];
    want_alias[i] = (static_cast<double>(alpha) + beta) * x[i];
    want16[i] = static_cast<double>(alpha) * round_bf16(x[i]) +
                static_cast<double>(beta) * round_bf16(y[i]);
  }
  Buffer dx = put(x);
  Buffer dy = put(y);
  Buffer dz = put(x);
  const std::vector<std::uint16_t> x16 = to_bf16(x);
  const std::vector<std::uint16_t> y16 = to_bf16(y);
  Buffer dx16 = put(x16);
  Buffer dy16 = put(y16);
  const auto ni = static_cast<std::int64_t>(n);
  be().axpby(dy.data(), dx.data(), ElementType::kFloat32, ni, alpha, beta);
  be().axpby(dz.data(), dz.data(), ElementType::kFloat32, ni, alpha, beta);
  be().axpby(dy16.data(), dx16.data(), ElementType::kBFloat16, ni, alpha, beta);
  expect_close(get<float>(dy, n), want, kRtol, kAtol, "axpby fp32");
  expect_close(get<float>(dz, n), want_alias, kRtol, kAtol, "axpby aliased");
  expect_close(from_bf16(get<std::uint16_t>(dy16, n)), want16, kBf16Rtol, 1e-5, "axpby bf16");
}

TEST_F(CudaBackendGpu, EmaAndEmaSquare) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 50000));
  const std::vector<float> m = uniform(n);
  const std::vector<float> v = uniform(n, 0.0f, 1.0f);
  const std::vector<float> g = uniform(n);
  Buffer dm = put(m);
  Buffer dv = put(v);
  Buffer dg = put(g);
  const auto ni = static_cast<std::int64_t>(n);
  be().ema(dm.as<float>(), dg.as<float>(), ni, 0.9f);
  be().ema_square(dv.as<float>(), dg.as<float>(), ni, 0.999f);
  std::vector<double> want_m(n);
  std::vector<double> want_v(n);
  for (std::size_t i = 0; i < n; ++i) {
    want_m[i] = 0.9 * m[i] + (1.0 - 0.9) * g[i];
    want_v[i] = 0.999 * v[i] + (1.0 - 0.999) * static_cast<double>(g[i]) * g[i];
  }
  expect_close(get<float>(dm, n), want_m, kRtol, kAtol, "ema");
  expect_close(get<float>(dv, n), want_v, kRtol, kAtol, "ema_square");
}

TEST_F(CudaBackendGpu, AdamDirectionAndDivideSqrtEpsAliased) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 50000));
  const std::vector<float> m = uniform(n);
  const std::vector<float> v = uniform(n, 0.0f, 1.0f);
  Buffer dm = put(m);
  Buffer dx = put(m);
  Buffer dv = put(v);
  const auto ni = static_cast<std::int64_t>(n);
  const float bias1 = 0.1f;
  const float bias2 = 0.05f;
  const float eps = 1e-8f;
  be().adam_direction(dm.as<float>(), dv.as<float>(), dm.as<float>(), ni, bias1, bias2, eps);
  be().divide_sqrt_eps(dx.as<float>(), dv.as<float>(), dx.as<float>(), ni, 1e-3f);
  std::vector<double> want_dir(n);
  std::vector<double> want_div(n);
  for (std::size_t i = 0; i < n; ++i) {
    want_dir[i] = (m[i] / static_cast<double>(bias1)) /
                  (std::sqrt(v[i] / static_cast<double>(bias2)) + static_cast<double>(eps));
    want_div[i] = m[i] / (std::sqrt(static_cast<double>(v[i])) + 1e-3);
  }
  expect_close(get<float>(dm, n), want_dir, 1e-5, kAtol, "adam_direction");
  expect_close(get<float>(dx, n), want_div, 1e-5, kAtol, "divide_sqrt_eps");
}

TEST_F(CudaBackendGpu, ApplyUpdateBothOrdersTypesAndRatios) {
  SCOPED_TRACE(trace());
  const std::int64_t n = pick(1, 20000);
  const std::int64_t count = 3;
  const std::size_t total = static_cast<std::size_t>(n * count);
  const float lr = 0.02f;
  const float wd = 0.1f;
  const float scale = 1.5f;
  const std::vector<float> num = {4.0f, 0.25f, 9.0f};
  const std::vector<float> den = {1.0f, 4.0f, 0.0f};  // 0 → clamped by max(·, 1e-30)
  Buffer dnum = put(num);
  Buffer dden = put(den);
  for (const DecayOrder order : {DecayOrder::kBeforeUpdate, DecayOrder::kAfterUpdate}) {
    for (const ElementType u_type : {ElementType::kFloat32, ElementType::kBFloat16}) {
      for (const bool ratio : {false, true}) {
        SCOPED_TRACE(std::string(order == DecayOrder::kBeforeUpdate ? "before" : "after") +
                     (u_type == ElementType::kBFloat16 ? " bf16" : " fp32") +
                     (ratio ? " ratio" : ""));
        const std::vector<float> p = uniform(total);
        std::vector<float> u = uniform(total, -1e-3f, 1e-3f);
        const bool b16 = u_type == ElementType::kBFloat16;
        if (b16) {
          std::transform(u.begin(), u.end(), u.begin(), [](float x) { return round_bf16(x); });
        }
        if (ratio) {
          // Item 2's ratio is 3/1e-30: keep its update finite by zeroing u there.
          std::fill(u.begin() + 2 * n, u.end(), 0.0f);
        }
        const std::vector<std::uint16_t> u16 = to_bf16(u);
        Buffer dp = put(p);
        Buffer du = b16 ? put(u16) : put(u);
        be().apply_update(dp.as<float>(), du.data(), u_type, n, count, lr, wd, scale, order,
                          ratio ? dnum.as<float>() : nullptr, ratio ? dden.as<float>() : nullptr);
        std::vector<double> want(total);
        for (std::size_t i = 0; i < total; ++i) {
          const std::size_t item = i / static_cast<std::size_t>(n);
          double s = scale;
          if (ratio) {
            s *= std::sqrt(static_cast<double>(num[item])) /
                 std::max(std::sqrt(static_cast<double>(den[item])), 1e-30);
          }
          const double decay = 1.0 - static_cast<double>(lr) * wd;
          const double step = static_cast<double>(lr) * s * u[i];
          want[i] =
              order == DecayOrder::kBeforeUpdate ? p[i] * decay - step : (p[i] - step) * decay;
        }
        expect_close(get<float>(dp, total), want, kRtol, kAtol, "apply_update");
      }
    }
  }
}

TEST_F(CudaBackendGpu, AdamwStep) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 50000));
  const std::vector<float> p = uniform(n);
  const std::vector<float> g = uniform(n);
  const std::vector<float> m = uniform(n, -0.1f, 0.1f);
  const std::vector<float> v = uniform(n, 0.0f, 0.01f);
  Buffer dp = put(p);
  Buffer dg = put(g);
  Buffer dm = put(m);
  Buffer dv = put(v);
  const double lr = 1e-3, b1 = 0.9, b2 = 0.95, eps = 1e-8, wd = 0.1;
  const double bias1 = 1.0 - std::pow(b1, 3), bias2 = 1.0 - std::pow(b2, 3);
  be().adamw_step(dp.as<float>(), dg.as<float>(), dm.as<float>(), dv.as<float>(),
                  static_cast<std::int64_t>(n), static_cast<float>(lr), static_cast<float>(b1),
                  static_cast<float>(b2), static_cast<float>(eps), static_cast<float>(wd),
                  static_cast<float>(bias1), static_cast<float>(bias2));
  std::vector<double> wp(n), wm(n), wv(n);
  for (std::size_t i = 0; i < n; ++i) {
    wm[i] = b1 * m[i] + (1 - b1) * g[i];
    wv[i] = b2 * v[i] + (1 - b2) * static_cast<double>(g[i]) * g[i];
    wp[i] = p[i] * (1 - lr * wd) - lr * (wm[i] / bias1) / (std::sqrt(wv[i] / bias2) + eps);
  }
  expect_close(get<float>(dm, n), wm, kRtol, kAtol, "m");
  expect_close(get<float>(dv, n), wv, kRtol, kAtol, "v");
  expect_close(get<float>(dp, n), wp, kRtol, kAtol, "p");
}

// ---- small-matrix helpers -------------------------------------------------------------------

TEST_F(CudaBackendGpu, AddDiagonalAndReverseColumns) {
  SCOPED_TRACE(trace());
  for (const std::int64_t n : {std::int64_t{1}, pick(2, 40) * 2, pick(2, 40) * 2 + 1}) {
    const std::int64_t count = 2;
    const std::vector<float> a = uniform(static_cast<std::size_t>(n * n * count));
    Buffer da = put(a);
    be().add_diagonal(da.as<float>(), n, count, 0.5f);
    be().reverse_columns(da.as<float>(), n, count);
    std::vector<double> want(a.size());
    for (std::int64_t item = 0; item < count; ++item) {
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t src = n - 1 - j;
          want[item * n * n + r * n + j] =
              static_cast<double>(a[item * n * n + r * n + src]) + (r == src ? 0.5 : 0.0);
        }
      }
    }
    expect_close(get<float>(da, a.size()), want, kRtol, kAtol, "n=" + std::to_string(n));
  }
}

TEST_F(CudaBackendGpu, ScaleColumnsPow) {
  SCOPED_TRACE(trace());
  const std::int64_t n = pick(1, 64);
  const std::int64_t count = 2;
  const std::vector<float> q = uniform(static_cast<std::size_t>(n * n * count));
  const std::vector<float> w = uniform(static_cast<std::size_t>(n * count), -1.0f, 4.0f);
  Buffer dq = put(q);
  Buffer dw = put(w);
  Buffer out = be().allocate(q.size() * 4);
  const float eps = 1e-6f;
  const float exponent = -0.25f;
  be().scale_columns_pow(dq.as<float>(), dw.as<float>(), out.as<float>(), n, count, eps, exponent);
  std::vector<double> want(q.size());
  for (std::int64_t item = 0; item < count; ++item) {
    for (std::int64_t r = 0; r < n; ++r) {
      for (std::int64_t j = 0; j < n; ++j) {
        const double f = std::pow(std::max(static_cast<double>(w[item * n + j]), 0.0) + eps,
                                  static_cast<double>(exponent));
        want[item * n * n + r * n + j] = q[item * n * n + r * n + j] * f;
      }
    }
  }
  expect_close(get<float>(out, q.size()), want, 1e-5, kAtol, "scale_columns_pow");
}

TEST_F(CudaBackendGpu, ArgsortDescendingIsStableOnTies) {
  SCOPED_TRACE(trace());
  const float choices[] = {-1.0f, 0.0f, -0.0f, 0.5f, 2.0f, 2.0f};
  for (const std::int64_t n : {std::int64_t{1}, pick(2, 300), pick(1000, 5000)}) {
    std::vector<float> v(static_cast<std::size_t>(n));
    for (float& x : v) {
      x = choices[pick(0, 5)];
    }
    if (n > 1000) {
      const std::vector<float> r = uniform(v.size());
      std::copy(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.begin());
    }
    Buffer dv = put(v);
    Buffer perm = be().allocate(v.size() * sizeof(int));
    Buffer ws = be().allocate(be().argsort_workspace_bytes(n, 1));
    be().argsort_descending(dv.as<float>(), n, 1, perm.as<int>(), ws.data());
    std::vector<int> want(v.size());
    std::iota(want.begin(), want.end(), 0);
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return v[a] > v[b]; });
    EXPECT_EQ(get<int>(perm, v.size()), want) << "n=" << n;
  }
}

TEST_F(CudaBackendGpu, ArgsortDescendingSortsEachSegmentStably) {
  SCOPED_TRACE(trace());
  const float choices[] = {-1.0f, 0.0f, -0.0f, 0.5f, 2.0f, 2.0f};
  // Up to 300 segments: the segment index takes 9 key bits above the value's 32.
  for (const std::int64_t count : {std::int64_t{2}, pick(3, 40), pick(200, 300)}) {
    const std::int64_t n = pick(1, 500);
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> v(un * static_cast<std::size_t>(count));
    for (float& x : v) x = choices[pick(0, 5)];
    Buffer dv = put(v);
    Buffer perm = be().allocate(v.size() * sizeof(int));
    Buffer ws = be().allocate(be().argsort_workspace_bytes(n, count));
    be().argsort_descending(dv.as<float>(), n, count, perm.as<int>(), ws.data());
    const std::vector<int> got = get<int>(perm, v.size());
    for (std::int64_t i = 0; i < count; ++i) {
      const float* seg = v.data() + i * n;
      std::vector<int> want(un);
      std::iota(want.begin(), want.end(), 0);
      std::stable_sort(want.begin(), want.end(), [seg](int a, int b) { return seg[a] > seg[b]; });
      ASSERT_EQ(std::vector<int>(got.begin() + i * n, got.begin() + (i + 1) * n), want)
          << "n=" << n << " count=" << count << " segment " << i;
    }
  }
}

TEST_F(CudaBackendGpu, PermuteRowsAndColumnsOfBackToBackItems) {
  SCOPED_TRACE(trace());
  const std::int64_t count = pick(2, 70);
  const std::int64_t d = pick(1, 50);
  const auto size = static_cast<std::size_t>(d * d);
  const std::vector<float> a = uniform(size * static_cast<std::size_t>(count));
  std::vector<int> perms;
  for (std::int64_t i = 0; i < count; ++i) {
    std::vector<int> p(static_cast<std::size_t>(d));
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng_);
    perms.insert(perms.end(), p.begin(), p.end());
  }
  Buffer da = put(a);
  Buffer dp = put(perms);
  Buffer by_rows = be().allocate(a.size() * 4);
  Buffer by_cols = be().allocate(a.size() * 4);
  be().permute_rows(back_to_back(da.as<const float>(), count, d * d), d, d, dp.as<int>(),
                    back_to_back(by_rows.as<float>(), count, d * d));
  be().permute_columns(back_to_back(da.as<const float>(), count, d * d), d, d, dp.as<int>(),
                       back_to_back(by_cols.as<float>(), count, d * d));
  std::vector<float> want_rows(a.size());
  std::vector<float> want_cols(a.size());
  for (std::int64_t i = 0; i < count; ++i) {
    const float* item = a.data() + i * d * d;
    const int* p = perms.data() + i * d;
    for (std::int64_t r = 0; r < d; ++r) {
      for (std::int64_t c = 0; c < d; ++c) {
        want_rows[(i * d + r) * d + c] = item[p[r] * d + c];
        want_cols[(i * d + r) * d + c] = item[r * d + p[c]];
      }
    }
  }
  EXPECT_EQ(get<float>(by_rows, a.size()), want_rows) << "count " << count << ", d " << d;
  EXPECT_EQ(get<float>(by_cols, a.size()), want_cols) << "count " << count << ", d " << d;
}

TEST_F(CudaBackendGpu, PermuteRowsAndColumns) {
  SCOPED_TRACE(trace());
  const std::int64_t rows = pick(1, 80);
  const std::int64_t cols = pick(1, 80);
  const std::vector<float> a = uniform(static_cast<std::size_t>(rows * cols));
  std::vector<int> prow(static_cast<std::size_t>(rows));
  std::vector<int> pcol(static_cast<std::size_t>(cols));
  std::iota(prow.begin(), prow.end(), 0);
  std::iota(pcol.begin(), pcol.end(), 0);
  std::shuffle(prow.begin(), prow.end(), rng_);
  std::shuffle(pcol.begin(), pcol.end(), rng_);
  Buffer da = put(a);
  Buffer dpr = put(prow);
  Buffer dpc = put(pcol);
  Buffer by_rows = be().allocate(a.size() * 4);
  Buffer by_cols = be().allocate(a.size() * 4);
  be().permute_rows(da.as<float>(), rows, cols, dpr.as<int>(), by_rows.as<float>());
  be().permute_columns(da.as<float>(), rows, cols, dpc.as<int>(), by_cols.as<float>());
  std::vector<float> want_rows(a.size());
  std::vector<float> want_cols(a.size());
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      want_rows[r * cols + c] = a[prow[r] * cols + c];
      want_cols[r * cols + c] = a[r * cols + pcol[c]];
    }
  }
  EXPECT_EQ(get<float>(by_rows, a.size()), want_rows);
  EXPECT_EQ(get<float>(by_cols, a.size()), want_cols);
}

TEST_F(CudaBackendGpu, EmptyOperationsAreNoOps) {
  SCOPED_TRACE(trace());
  be().convert(nullptr, ElementType::kBFloat16, nullptr, ElementType::kFloat32, 0);
  be().muon_momentum(nullptr, nullptr, nullptr, ElementType::kFloat32, 0, 0.9f, true);
  be().normalize(nullptr, ElementType::kFloat32, 0, 0, nullptr, 1e-7f);
  be().axpby(nullptr, nullptr, ElementType::kFloat32, 0, 1.0f, 1.0f);
  be().apply_update(nullptr, nullptr, ElementType::kFloat32, 0, 1, 0.1f, 0.1f, 1.0f,
                    DecayOrder::kBeforeUpdate, nullptr, nullptr);
  be().argsort_descending(nullptr, 0, 1, nullptr, nullptr);
  be().argsort_descending(nullptr, 5, 0, nullptr, nullptr);
  be().column_dots(nullptr, nullptr, 0, 3, nullptr);
  be().column_dots(nullptr, nullptr, 4, 0, nullptr);
  be().eigh(0, 1, nullptr, nullptr, nullptr);
  be().orthonormalize(0, 0, nullptr, nullptr);
  GemmArgs empty;
  be().gemm(empty);
  be().fill_zero(nullptr, 0);
  be().copy(nullptr, nullptr, 0);
  EXPECT_NO_THROW(be().synchronize());
}

// ---- ordering without host synchronisation --------------------------------------------------

TEST_F(CudaBackendGpu, ManyOpsThenOneSynchronize) {
  SCOPED_TRACE(trace());
  // A Muon-like chain (momentum → bf16 → Frobenius normalise → GEMM → decoupled update) and a
  // Shampoo-like chain (eigh → inverse-root columns → reverse), enqueued back to back with no
  // host synchronisation; only the final download waits.
  const std::int64_t m = pick(8, 48);
  const std::int64_t n = pick(8, 48);
  const std::int64_t k = pick(4, 16);
  const std::vector<float> g = uniform(static_cast<std::size_t>(m * n));
  const std::vector<float> p = uniform(static_cast<std::size_t>(m * n));
  const std::vector<float> proj = uniform(static_cast<std::size_t>(n * n));
  std::vector<float> sym(static_cast<std::size_t>(k * k));
  for (std::int64_t i = 0; i < k; ++i) {
    for (std::int64_t j = 0; j <= i; ++j) {
      sym[i * k + j] = sym[j * k + i] = (i == j ? 4.0f : 0.0f) + g[i * k + j] * 0.1f;
    }
  }
  Buffer dg = put(g);
  Buffer dp = put(p);
  Buffer dproj = put(proj);
  Buffer dsym = put(sym);
  Buffer buf = be().allocate(g.size() * 4);
  Buffer u16 = be().allocate(g.size() * 2);
  Buffer proj16 = be().allocate(proj.size() * 2);
  Buffer prod = be().allocate(g.size() * 4);
  Buffer sumsq = be().allocate(4);
  Buffer w = be().allocate(static_cast<std::size_t>(k) * 4);
  Buffer root = be().allocate(sym.size() * 4);
  Buffer ws = be().allocate(be().eigh_workspace_bytes(k, 1));
  const float mu = 0.9f;
  const float lr = 0.05f;

  be().muon_momentum(buf.as<float>(), dg.as<float>(), u16.data(), ElementType::kBFloat16, m * n, mu,
                     true);
  be().sum_squares(u16.data(), ElementType::kBFloat16, m * n, 1, sumsq.as<float>());
  be().normalize(u16.data(), ElementType::kBFloat16, m * n, 1, sumsq.as<float>(), 1e-7f);
  be().convert(proj16.data(), ElementType::kBFloat16, dproj.data(), ElementType::kFloat32, n * n);
  GemmArgs args;
  args.m = m;
  args.n = n;
  args.k = n;
  args.a = u16.data();
  args.lda = n;
  args.b = proj16.data();
  args.ldb = n;
  args.c = prod.data();
  args.ldc = n;
  args.ab_type = ElementType::kBFloat16;
  args.c_type = ElementType::kFloat32;
  be().gemm(args);
  be().apply_update(dp.as<float>(), prod.data(), ElementType::kFloat32, m * n, 1, lr, 0.0f, 1.0f,
                    DecayOrder::kBeforeUpdate, nullptr, nullptr);
  be().eigh(k, 1, dsym.as<float>(), w.as<float>(), ws.data());
  be().scale_columns_pow(dsym.as<float>(), w.as<float>(), root.as<float>(), k, 1, 0.0f, -0.5f);
  be().reverse_columns(root.as<float>(), k, 1);
  const std::vector<float> got_p = get<float>(dp, p.size());
  const std::vector<float> got_w = get<float>(w, static_cast<std::size_t>(k));
  const std::vector<float> got_q = get<float>(dsym, sym.size());
  const std::vector<float> got_root = get<float>(root, sym.size());

  // Muon chain reference (bf16 roundings mirrored; budget one bf16 ulp of each input).
  const double b1 = 1.0 - mu;
  std::vector<double> u(g.size());
  double ss = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double bi = b1 * g[i];
    u[i] = round_bf16(static_cast<float>(b1 * g[i] + mu * bi));
    ss += u[i] * u[i];
  }
  std::vector<double> want_p(p.size());
  double max_mag = 0.0;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      double mag = 0.0;
      for (std::int64_t l = 0; l < n; ++l) {
        const double ul = u[i * n + l] / std::sqrt(ss);
        sum += ul * round_bf16(proj[l * n + j]);
        mag += std::abs(ul * proj[l * n + j]);
      }
      max_mag = std::max(max_mag, mag);
      want_p[i * n + j] = p[i * n + j] - lr * sum;
    }
  }
  expect_close(got_p, want_p, 0.0, lr * max_mag * 3.0 / 128.0, "muon chain");

  // Shampoo chain: root = Q·diag(w^-1/2) with columns reversed, so root·rootᵀ = A⁻¹; check
  // A·(root·rootᵀ) = I.
  for (std::int64_t i = 0; i < k; ++i) {
    for (std::int64_t j = 0; j < k; ++j) {
      double inv_ij = 0.0;
      for (std::int64_t l = 0; l < k; ++l) {
        double rr = 0.0;
        for (std::int64_t c = 0; c < k; ++c) {
          rr += static_cast<double>(got_root[l * k + c]) * got_root[j * k + c];
        }
        inv_ij += static_cast<double>(sym[i * k + l]) * rr;
      }
      EXPECT_NEAR(inv_ij, i == j ? 1.0 : 0.0, 1e-4) << i << ", " << j;
    }
  }
  EXPECT_TRUE(std::is_sorted(got_w.begin(), got_w.end()));
  EXPECT_NO_THROW(cuda().synchronize());
  (void)got_q;
}

// ---- agreement with the cpu backend ---------------------------------------------------------

TEST_F(CudaBackendGpu, MatchesCpuBackend) {
  SCOPED_TRACE(trace());
  std::unique_ptr<Backend> cpu = make_backend("cpu");
  const std::int64_t m = pick(16, 64);
  const std::int64_t n = pick(16, 64);
  const std::vector<float> a = uniform(static_cast<std::size_t>(m * n));
  const std::vector<float> b = uniform(static_cast<std::size_t>(n * n));
  std::vector<float> sym(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j <= i; ++j) {
      sym[i * n + j] = sym[j * n + i] = b[i * n + j];
    }
  }
  struct Results {
    std::vector<float> c, ss, p, q, w;
    std::vector<int> perm;
  };
  auto run = [&](Backend& backend) {
    auto upload = [&](const std::vector<float>& v) {
      Buffer d = backend.allocate(v.size() * 4);
      backend.upload(d.data(), v.data(), v.size() * 4);
      return d;
    };
    auto download = [&](const Buffer& d, std::size_t count) {
      std::vector<float> v(count);
      backend.download(v.data(), d.data(), count * 4);
      return v;
    };
    Buffer da = upload(a);
    Buffer db = upload(b);
    Buffer dsym = upload(sym);
    Buffer dc = backend.allocate(a.size() * 4);
    Buffer dss = backend.allocate(4);
    Buffer dm = backend.allocate(a.size() * 4);
    Buffer dv = backend.allocate(a.size() * 4);
    Buffer dp = upload(a);
    Buffer dw = backend.allocate(static_cast<std::size_t>(n) * 4);
    Buffer perm = backend.allocate(static_cast<std::size_t>(n) * 4);
    Buffer ews = backend.allocate(backend.eigh_workspace_bytes(n, 1));
    Buffer sws = backend.allocate(backend.argsort_workspace_bytes(n, 1));
    GemmArgs args;
    args.trans_b = Trans::kYes;
    args.m = m;
    args.n = n;
    args.k = n;
    args.a = da.data();
    args.lda = n;
    args.b = db.data();
    args.ldb = n;
    args.c = dc.data();
    args.ldc = n;
    backend.gemm(args);
    backend.sum_squares(dc.data(), ElementType::kFloat32, m * n, 1, dss.as<float>());
    backend.adamw_step(dp.as<float>(), dc.as<float>(), dm.as<float>(), dv.as<float>(), m * n, 1e-2f,
                       0.9f, 0.99f, 1e-8f, 0.1f, 0.1f, 0.01f);
    backend.eigh(n, 1, dsym.as<float>(), dw.as<float>(), ews.data());
    backend.argsort_descending(dw.as<float>(), n, 1, perm.as<int>(), sws.data());
    Results r;
    r.c = download(dc, a.size());
    r.ss = download(dss, 1);
    r.p = download(dp, a.size());
    r.w = download(dw, static_cast<std::size_t>(n));
    r.perm.resize(static_cast<std::size_t>(n));
    backend.download(r.perm.data(), perm.data(), r.perm.size() * sizeof(int));
    return r;
  };
  const Results want = run(*cpu);
  const Results got = run(be());
  expect_close(got.c, widen(want.c), 1e-4, 1e-5, "gemm");
  expect_close(got.ss, widen(want.ss), 1e-5, 0.0, "sum_squares");
  expect_close(got.p, widen(want.p), 1e-5, 1e-6, "adamw_step");
  expect_close(got.w, widen(want.w), 1e-4, 1e-4, "eigenvalues");
  // Eigenvalues of a random matrix are distinct well beyond fp32 noise, so the order agrees.
  EXPECT_EQ(got.perm, want.perm);
}

}  // namespace
}  // namespace canzona::backend::test
