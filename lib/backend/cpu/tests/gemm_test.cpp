// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend::gemm against a double-precision triple loop: all transpose combinations, alpha and
// beta, padded leading dimensions, strided batches, bf16 operands and bf16 output.
//
// Tolerance: the componentwise bound of any fp32 summation order (Higham, Thm 3.5),
//   |C − Ĉ| ≤ γ(k+2) · (|α|·Σ_p |a_ip·b_pj| + |β·c_ij|),  γ(j) = j·u / (1 − j·u),  u = 2^-24,
// with the exact (double) products of the fp32 (or bf16-widened) inputs as reference. A bf16 C
// adds one rounding of at most u_bf16 = 2^-8 relative.
#include "cpu_backend.hpp"
#include "numerics.hpp"

#include <canzona/core/error.hpp>
#include "test_util.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace canzona::backend::cpu {
namespace {

using ops::bf16_to_float;
using ops::float_to_bf16;

using test::kU;
using test::kUBf16;

double widen(float x) { return x; }
double widen(std::uint16_t x) { return bf16_to_float(x); }

template <typename T>
T narrow(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else {
    return float_to_bf16(x);
  }
}

template <typename T>
constexpr ElementType type_of() {
  return std::is_same_v<T, float> ? ElementType::kFloat32 : ElementType::kBFloat16;
}

template <typename T>
bool same_bits(T a, T b) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  } else {
    return a == b;
  }
}

struct GemmCase {
  Trans ta, tb;
  std::int64_t m, n, k;
  float alpha, beta;
  std::int64_t pad;    ///< extra columns in every leading dimension
  std::int64_t batch;  ///< items, separated by a gap of 5 elements past each item
  bool nan_c = false;  ///< C starts as NaN (with beta == 0 it must be ignored)
};

std::string describe(const GemmCase& c) {
  return std::string("trans_a=") + (c.ta == Trans::kYes ? "T" : "N") +
         " trans_b=" + (c.tb == Trans::kYes ? "T" : "N") + " m=" + std::to_string(c.m) +
         " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         " alpha=" + std::to_string(c.alpha) + " beta=" + std::to_string(c.beta) +
         " pad=" + std::to_string(c.pad) + " batch=" + std::to_string(c.batch);
}

template <typename AB, typename C>
void check_gemm(CpuBackend& backend, std::mt19937_64& rng, const GemmCase& gc) {
  SCOPED_TRACE(describe(gc));
  const std::int64_t a_rows = gc.ta == Trans::kNo ? gc.m : gc.k;
  const std::int64_t a_cols = gc.ta == Trans::kNo ? gc.k : gc.m;
  const std::int64_t b_rows = gc.tb == Trans::kNo ? gc.k : gc.n;
  const std::int64_t b_cols = gc.tb == Trans::kNo ? gc.n : gc.k;
  const std::int64_t lda = a_cols + gc.pad, ldb = b_cols + gc.pad, ldc = gc.n + gc.pad;
  const std::int64_t stride_a = a_rows * lda + 5, stride_b = b_rows * ldb + 5,
                     stride_c = gc.m * ldc + 5;

  auto fill = [&](std::int64_t count) {
    std::vector<AB> out(static_cast<std::size_t>(count));
    for (AB& x : out) x = narrow<AB>(test::random_floats(rng, 1)[0]);
    return out;
  };
  const std::vector<AB> a = fill(gc.batch * stride_a);
  const std::vector<AB> b = fill(gc.batch * stride_b);
  std::vector<C> c0(static_cast<std::size_t>(gc.batch * stride_c));
  for (C& x : c0) {
    x = narrow<C>(gc.nan_c ? std::numeric_limits<float>::quiet_NaN()
                           : test::random_floats(rng, 1)[0]);
  }

  Buffer a_buf = test::to_backend(backend, a);
  Buffer b_buf = test::to_backend(backend, b);
  Buffer c_buf = test::to_backend(backend, c0);
  GemmArgs args;
  args.trans_a = gc.ta;
  args.trans_b = gc.tb;
  args.m = gc.m;
  args.n = gc.n;
  args.k = gc.k;
  args.alpha = gc.alpha;
  args.beta = gc.beta;
  args.a = a_buf.data();
  args.lda = lda;
  args.b = b_buf.data();
  args.ldb = ldb;
  args.c = c_buf.data();
  args.ldc = ldc;
  args.ab_type = type_of<AB>();
  args.c_type = type_of<C>();
  args.batch = gc.batch;
  args.stride_a = stride_a;
  args.stride_b = stride_b;
  args.stride_c = stride_c;
  backend.gemm(args);
  const std::vector<C> c = test::to_host<C>(backend, c_buf, c0.size());

  const double gamma = (gc.k + 2) * kU / (1.0 - (gc.k + 2) * kU);
  std::vector<bool> inside(c.size(), false);
  for (std::int64_t item = 0; item < gc.batch; ++item) {
    for (std::int64_t i = 0; i < gc.m; ++i) {
      for (std::int64_t j = 0; j < gc.n; ++j) {
        double sum = 0.0, magnitude = 0.0;
        for (std::int64_t p = 0; p < gc.k; ++p) {
          const std::int64_t ai =
              item * stride_a + (gc.ta == Trans::kNo ? i * lda + p : p * lda + i);
          const std::int64_t bi =
              item * stride_b + (gc.tb == Trans::kNo ? p * ldb + j : j * ldb + p);
          const double prod =
              widen(a[static_cast<std::size_t>(ai)]) * widen(b[static_cast<std::size_t>(bi)]);
          sum += prod;
          magnitude += std::fabs(prod);
        }
        const auto ci = static_cast<std::size_t>(item * stride_c + i * ldc + j);
        inside[ci] = true;
        const double old_c = gc.beta == 0.0f ? 0.0 : widen(c0[ci]);
        const double expected = gc.alpha * sum + gc.beta * old_c;
        double tol = gamma * (std::fabs(gc.alpha) * magnitude + std::fabs(gc.beta * old_c));
        if constexpr (!std::is_same_v<C, float>) tol += kUBf16 * (std::fabs(expected) + tol);
        const double got = widen(c[ci]);
        ASSERT_LE(std::fabs(got - expected), tol)
            << "item " << item << " C[" << i << "," << j << "] = " << got << ", expected "
            << expected << " (atol " << tol << ")";
      }
    }
  }
  // Padding columns and the gaps between items are never written.
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (!inside[i]) {
      ASSERT_TRUE(same_bits(c[i], c0[i])) << "element " << i << " outside C changed";
    }
  }
}

std::vector<GemmCase> cases() {
  std::vector<GemmCase> out;
  for (Trans ta : {Trans::kNo, Trans::kYes}) {
    for (Trans tb : {Trans::kNo, Trans::kYes}) {
      out.push_back({ta, tb, 7, 5, 3, 1.0f, 0.0f, 0, 1});
      out.push_back({ta, tb, 33, 17, 65, 1.5f, -0.75f, 3, 1});
      out.push_back({ta, tb, 9, 12, 40, -0.5f, 2.0f, 1, 3});
    }
  }
  return out;
}

TEST(CpuGemmTest, HandComputedRowMajorProduct) {
  CpuBackend backend;
  Buffer a = test::to_backend(backend, std::vector<float>{1, 2, 3, 4});
  Buffer b = test::to_backend(backend, std::vector<float>{5, 6, 7, 8});
  Buffer c = backend.allocate(4 * sizeof(float));
  GemmArgs args;
  args.m = args.n = args.k = 2;
  args.a = a.data();
  args.b = b.data();
  args.c = c.data();
  args.lda = args.ldb = args.ldc = 2;
  backend.gemm(args);
  EXPECT_EQ(test::to_host<float>(backend, c, 4), (std::vector<float>{19, 22, 43, 50}));
  args.trans_a = Trans::kYes;  // Aᵀ = [[1, 3], [2, 4]]
  backend.gemm(args);
  EXPECT_EQ(test::to_host<float>(backend, c, 4), (std::vector<float>{26, 30, 38, 44}));
}

TEST(CpuGemmTest, Fp32MatchesDoubleLoop) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(10);
  CpuBackend backend;
  for (const GemmCase& gc : cases()) check_gemm<float, float>(backend, rng, gc);
}

TEST(CpuGemmTest, Bf16OperandsMatchDoubleLoopOnWidenedInputs) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(11);
  CpuBackend backend;
  for (const GemmCase& gc : cases()) check_gemm<std::uint16_t, float>(backend, rng, gc);
}

TEST(CpuGemmTest, Bf16OutputIsRoundedFp32Result) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(12);
  CpuBackend backend;
  for (const GemmCase& gc : cases()) {
    check_gemm<std::uint16_t, std::uint16_t>(backend, rng, gc);
    check_gemm<float, std::uint16_t>(backend, rng, gc);
  }
}

TEST(CpuGemmTest, BetaZeroIgnoresNanInC) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(13);
  CpuBackend backend;
  for (Trans ta : {Trans::kNo, Trans::kYes}) {
    const GemmCase gc{ta, Trans::kNo, 6, 4, 5, 1.25f, 0.0f, 2, 2, true};
    check_gemm<float, float>(backend, rng, gc);
    check_gemm<std::uint16_t, std::uint16_t>(backend, rng, gc);
    check_gemm<std::uint16_t, float>(backend, rng, gc);
  }
}

TEST(CpuGemmTest, ZeroInnerDimensionScalesC) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(14);
  CpuBackend backend;
  check_gemm<float, float>(backend, rng, {Trans::kNo, Trans::kNo, 4, 3, 0, 1.0f, 0.5f, 1, 1});
}

TEST(CpuGemmTest, ScratchGrowsOnlyOnWarmUp) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(15);
  CpuBackend backend;
  const GemmCase big{Trans::kNo, Trans::kYes, 20, 30, 40, 1.0f, 0.0f, 0, 2};
  const GemmCase small{Trans::kNo, Trans::kNo, 5, 6, 7, 1.0f, 0.0f, 0, 2};
  check_gemm<std::uint16_t, std::uint16_t>(backend, rng, big);
  const std::size_t warm = backend.scratch_bytes();
  EXPECT_GT(warm, 0U);
  check_gemm<std::uint16_t, std::uint16_t>(backend, rng, big);
  check_gemm<std::uint16_t, std::uint16_t>(backend, rng, small);
  EXPECT_EQ(backend.scratch_bytes(), warm);
}

TEST(CpuGemmTest, RejectsTooSmallLeadingDimension) {
  CpuBackend backend;
  std::vector<float> data(16);
  GemmArgs args;
  args.m = args.n = args.k = 4;
  args.a = args.b = data.data();
  args.c = data.data() + 0;
  args.lda = 3;
  args.ldb = args.ldc = 4;
  EXPECT_THROW(backend.gemm(args), Error);
}

}  // namespace
}  // namespace canzona::backend::cpu
