// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Small-matrix helpers of the preconditioners: add_diagonal, scale_columns_pow, reverse_columns,
// argsort_descending (ties by lower index), permute_rows / permute_columns, column_dots.
#include "cpu_backend.hpp"

#include <canzona/core/error.hpp>

#include "test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace canzona::backend::cpu {
namespace {

using test::kU;

TEST(CpuMatrixHelpersTest, AddDiagonalPerItem) {
  CpuBackend backend;
  Buffer a = test::to_backend(backend, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  backend.add_diagonal(a.as<float>(), 2, 2, 0.5f);
  EXPECT_EQ(test::to_host<float>(backend, a, 8),
            (std::vector<float>{1.5f, 2, 3, 4.5f, 5.5f, 6, 7, 8.5f}));
}

TEST(CpuMatrixHelpersTest, ScaleColumnsPowExact) {
  CpuBackend backend;
  // (max(w, 0) + 1)^-0.5 for w = [3, 15, −1] is [0.5, 0.25, 1].
  Buffer q = test::to_backend(backend, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  Buffer w = test::to_backend(backend, std::vector<float>{3, 15, -1});
  Buffer out = backend.allocate(9 * sizeof(float));
  backend.scale_columns_pow(q.as<float>(), w.as<float>(), out.as<float>(), 3, 1, 1.0f, -0.5f);
  const std::vector<float> expected{0.5f, 0.5f, 3, 2, 1.25f, 6, 3.5f, 2, 9};
  EXPECT_EQ(test::to_host<float>(backend, out, 9), expected);
  backend.scale_columns_pow(q.as<float>(), w.as<float>(), q.as<float>(), 3, 1, 1.0f, -0.5f);
  EXPECT_EQ(test::to_host<float>(backend, q, 9), expected) << "out aliasing q";
}

TEST(CpuMatrixHelpersTest, ScaleColumnsPowRejectsExponentsItCannotRootExactly) {
  CpuBackend backend;
  Buffer q = test::to_backend(backend, std::vector<float>{1, 2, 3, 4});
  Buffer w = test::to_backend(backend, std::vector<float>{1, 2});
  for (float exponent : {-0.3f, 0.25f, -2.0f}) {
    EXPECT_THROW(backend.scale_columns_pow(q.as<float>(), w.as<float>(), q.as<float>(), 2, 1, 0.0f,
                                           exponent),
                 Error)
        << exponent;
  }
}

TEST(CpuMatrixHelpersTest, ScaleColumnsPowMatchesDoubleLoop) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(40);
  CpuBackend backend;
  constexpr std::int64_t kN = 17, kCount = 3;
  const auto q = test::random_floats(rng, kN * kN * kCount);
  const auto w = test::random_floats(rng, kN * kCount, -0.1f, 10.0f);
  Buffer qb = test::to_backend(backend, q);
  Buffer wb = test::to_backend(backend, w);
  Buffer out = backend.allocate(q.size() * sizeof(float));
  backend.scale_columns_pow(qb.as<float>(), wb.as<float>(), out.as<float>(), kN, kCount, 1e-6f,
                            -0.25f);
  const auto got = test::to_host<float>(backend, out, q.size());
  for (std::int64_t item = 0; item < kCount; ++item) {
    for (std::int64_t r = 0; r < kN; ++r) {
      for (std::int64_t j = 0; j < kN; ++j) {
        const double base = std::max(static_cast<double>(w[item * kN + j]), 0.0) + 1e-6f;
        const double e = q[(item * kN + r) * kN + j] * std::pow(base, -0.25);
        // libm powf is within a few ulp; with the rounded base and the product: c = 8.
        ASSERT_LE(std::fabs(got[(item * kN + r) * kN + j] - e), 8 * kU * std::fabs(e));
      }
    }
  }
}

TEST(CpuMatrixHelpersTest, ReverseColumnsPerItem) {
  CpuBackend backend;
  Buffer a = test::to_backend(backend, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  backend.reverse_columns(a.as<float>(), 2, 2);
  EXPECT_EQ(test::to_host<float>(backend, a, 8), (std::vector<float>{2, 1, 4, 3, 6, 5, 8, 7}));
  Buffer b = test::to_backend(backend, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  backend.reverse_columns(b.as<float>(), 3, 1);
  EXPECT_EQ(test::to_host<float>(backend, b, 9), (std::vector<float>{3, 2, 1, 6, 5, 4, 9, 8, 7}));
}

TEST(CpuMatrixHelpersTest, ArgsortDescendingBreaksTiesByLowerIndex) {
  CpuBackend backend;
  Buffer v = test::to_backend(backend, std::vector<float>{1, 3, 3, -1, 3, 0});
  Buffer perm = backend.allocate(6 * sizeof(int));
  Buffer ws = backend.allocate(backend.argsort_workspace_bytes(6));
  backend.argsort_descending(v.as<float>(), 6, perm.as<int>(), ws.data());
  EXPECT_EQ(test::to_host<int>(backend, perm, 6), (std::vector<int>{1, 2, 4, 0, 5, 3}));

  // NaN sorts after every number (documented choice; keeps the order well defined).
  Buffer vn = test::to_backend(
      backend, std::vector<float>{std::numeric_limits<float>::quiet_NaN(), 2, -5, 2});
  backend.argsort_descending(vn.as<float>(), 4, perm.as<int>(), ws.data());
  EXPECT_EQ(test::to_host<int>(backend, perm, 4), (std::vector<int>{1, 3, 2, 0}));
}

TEST(CpuMatrixHelpersTest, ArgsortDescendingRandomWithManyTies) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(41);
  CpuBackend backend;
  constexpr int kN = 500;
  std::vector<float> values(kN);
  std::uniform_int_distribution<int> dist(0, 9);
  for (float& x : values) x = static_cast<float>(dist(rng));
  Buffer v = test::to_backend(backend, values);
  Buffer perm = backend.allocate(kN * sizeof(int));
  Buffer ws = backend.allocate(backend.argsort_workspace_bytes(kN));
  backend.argsort_descending(v.as<float>(), kN, perm.as<int>(), ws.data());
  const auto p = test::to_host<int>(backend, perm, kN);
  std::vector<int> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> iota(kN);
  std::iota(iota.begin(), iota.end(), 0);
  ASSERT_EQ(sorted, iota) << "not a permutation";
  for (int i = 1; i < kN; ++i) {
    const float a = values[p[i - 1]], b = values[p[i]];
    ASSERT_GE(a, b) << "position " << i;
    if (a == b) {
      ASSERT_LT(p[i - 1], p[i]) << "tie order at position " << i;
    }
  }
}

TEST(CpuMatrixHelpersTest, PermuteRowsAndColumns) {
  CpuBackend backend;
  // [[1, 2, 3], [4, 5, 6]]
  Buffer a = test::to_backend(backend, std::vector<float>{1, 2, 3, 4, 5, 6});
  Buffer pc = test::to_backend(backend, std::vector<int>{2, 0, 1});
  Buffer pr = test::to_backend(backend, std::vector<int>{1, 0});
  Buffer out = backend.allocate(6 * sizeof(float));
  backend.permute_columns(a.as<float>(), 2, 3, pc.as<int>(), out.as<float>());
  EXPECT_EQ(test::to_host<float>(backend, out, 6), (std::vector<float>{3, 1, 2, 6, 4, 5}));
  backend.permute_rows(a.as<float>(), 2, 3, pr.as<int>(), out.as<float>());
  EXPECT_EQ(test::to_host<float>(backend, out, 6), (std::vector<float>{4, 5, 6, 1, 2, 3}));
}

TEST(CpuMatrixHelpersTest, ColumnDots) {
  CpuBackend backend;
  // diag(aᵀb) for a = [[1, 2], [3, 4]], b = [[5, 6], [7, 8]]: [1·5 + 3·7, 2·6 + 4·8].
  Buffer a = test::to_backend(backend, std::vector<float>{1, 2, 3, 4});
  Buffer b = test::to_backend(backend, std::vector<float>{5, 6, 7, 8});
  Buffer out = backend.allocate(2 * sizeof(float));
  backend.column_dots(a.as<float>(), b.as<float>(), 2, out.as<float>());
  EXPECT_EQ(test::to_host<float>(backend, out, 2), (std::vector<float>{26, 44}));

  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(42);
  constexpr std::int64_t kN = 70;
  const auto x = test::random_floats(rng, kN * kN);
  const auto y = test::random_floats(rng, kN * kN);
  Buffer xb = test::to_backend(backend, x);
  Buffer yb = test::to_backend(backend, y);
  Buffer ob = backend.allocate(kN * sizeof(float));
  backend.column_dots(xb.as<float>(), yb.as<float>(), kN, ob.as<float>());
  const auto got = test::to_host<float>(backend, ob, kN);
  for (std::int64_t j = 0; j < kN; ++j) {
    double e = 0.0, magnitude = 0.0;
    for (std::int64_t r = 0; r < kN; ++r) {
      e += static_cast<double>(x[r * kN + j]) * y[r * kN + j];
      magnitude += std::fabs(static_cast<double>(x[r * kN + j]) * y[r * kN + j]);
    }
    // Sequential fp32 dot product: γ(n) · Σ|a·b|.
    EXPECT_LE(std::fabs(got[j] - e), (kN + 1) * kU * magnitude) << "column " << j;
  }
}

}  // namespace
}  // namespace canzona::backend::cpu
