// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Small-matrix helpers of the preconditioners: add_diagonal, scale_columns_pow, reverse_columns,
// argsort_descending (ties by lower index), permute_rows / permute_columns, column_dots; their
// batched forms against one call per item.
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
  Buffer ws = backend.allocate(backend.argsort_workspace_bytes(6, 1));
  backend.argsort_descending(v.as<float>(), 6, 1, perm.as<int>(), ws.data());
  EXPECT_EQ(test::to_host<int>(backend, perm, 6), (std::vector<int>{1, 2, 4, 0, 5, 3}));

  // NaN sorts after every number (documented choice; keeps the order well defined).
  Buffer vn = test::to_backend(
      backend, std::vector<float>{std::numeric_limits<float>::quiet_NaN(), 2, -5, 2});
  backend.argsort_descending(vn.as<float>(), 4, 1, perm.as<int>(), ws.data());
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
  Buffer ws = backend.allocate(backend.argsort_workspace_bytes(kN, 1));
  backend.argsort_descending(v.as<float>(), kN, 1, perm.as<int>(), ws.data());
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
  backend.column_dots(a.as<float>(), b.as<float>(), 2, 1, out.as<float>());
  EXPECT_EQ(test::to_host<float>(backend, out, 2), (std::vector<float>{26, 44}));

  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(42);
  constexpr std::int64_t kN = 70;
  const auto x = test::random_floats(rng, kN * kN);
  const auto y = test::random_floats(rng, kN * kN);
  Buffer xb = test::to_backend(backend, x);
  Buffer yb = test::to_backend(backend, y);
  Buffer ob = backend.allocate(kN * sizeof(float));
  backend.column_dots(xb.as<float>(), yb.as<float>(), kN, 1, ob.as<float>());
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

// ---- batches: one call over `count` items gives, item by item, the bits of one call per item --

TEST(CpuMatrixHelpersTest, BatchedColumnDotsMatchOneCallPerItem) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(43);
  CpuBackend backend;
  constexpr std::int64_t kN = 23, kCount = 4;
  std::vector<float> x = test::random_floats(rng, kN * kN * kCount);
  const auto y = test::random_floats(rng, kN * kN * kCount);
  x[kN * kN + 3] = std::numeric_limits<float>::quiet_NaN();  // item 1, column 3
  Buffer xb = test::to_backend(backend, x);
  Buffer yb = test::to_backend(backend, y);
  Buffer batched = backend.allocate(kN * kCount * sizeof(float));
  Buffer single = backend.allocate(kN * kCount * sizeof(float));
  backend.column_dots(xb.as<float>(), yb.as<float>(), kN, kCount, batched.as<float>());
  for (std::int64_t i = 0; i < kCount; ++i) {
    backend.column_dots(xb.as<float>() + i * kN * kN, yb.as<float>() + i * kN * kN, kN, 1,
                        single.as<float>() + i * kN);
  }
  const auto got = test::to_host<float>(backend, batched, kN * kCount);
  const auto want = test::to_host<float>(backend, single, kN * kCount);
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_TRUE(got[k] == want[k] || (std::isnan(got[k]) && std::isnan(want[k])))
        << "k " << k << ": " << got[k] << " vs " << want[k];
  }
  EXPECT_TRUE(std::isnan(got[kN + 3])) << "a NaN reaches its column only";
  EXPECT_FALSE(std::isnan(got[kN + 2]));
}

TEST(CpuMatrixHelpersTest, BatchedArgsortMatchesOneCallPerItemWithTies) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(44);
  CpuBackend backend;
  constexpr std::int64_t kN = 41, kCount = 6;
  // Few distinct values, ±0 and NaNs: ties everywhere, which must keep index order per segment.
  const float choices[] = {2.0f, 1.0f, 0.0f, -0.0f, -1.0f, std::numeric_limits<float>::quiet_NaN()};
  std::uniform_int_distribution<int> dist(0, 5);
  std::vector<float> values(kN * kCount);
  for (float& v : values) v = choices[dist(rng)];
  Buffer v = test::to_backend(backend, values);
  Buffer batched = backend.allocate(kN * kCount * sizeof(int));
  Buffer single = backend.allocate(kN * kCount * sizeof(int));
  Buffer ws = backend.allocate(backend.argsort_workspace_bytes(kN, kCount));
  EXPECT_GE(backend.argsort_workspace_bytes(kN, kCount), backend.argsort_workspace_bytes(kN, 1));
  backend.argsort_descending(v.as<float>(), kN, kCount, batched.as<int>(), ws.data());
  for (std::int64_t i = 0; i < kCount; ++i) {
    backend.argsort_descending(v.as<float>() + i * kN, kN, 1, single.as<int>() + i * kN, ws.data());
  }
  const auto got = test::to_host<int>(backend, batched, kN * kCount);
  EXPECT_EQ(got, test::to_host<int>(backend, single, kN * kCount));
  for (std::int64_t i = 0; i < kCount; ++i) {
    // Each segment's permutation indexes its own values, in the documented order.
    std::vector<int> want(kN);
    std::iota(want.begin(), want.end(), 0);
    const float* seg = values.data() + i * kN;
    std::stable_sort(want.begin(), want.end(), [seg](int l, int r) {
      if (std::isnan(seg[l]) || std::isnan(seg[r]))
        return !std::isnan(seg[l]) && std::isnan(seg[r]);
      return seg[l] > seg[r];
    });
    EXPECT_EQ(std::vector<int>(got.begin() + i * kN, got.begin() + (i + 1) * kN), want)
        << "segment " << i;
  }
}

TEST(CpuMatrixHelpersTest, BatchedPermutesOverListedItemsMatchOneCallPerItem) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(45);
  CpuBackend backend;
  constexpr std::int64_t kRows = 5, kCols = 7, kCount = 3;
  constexpr std::int64_t kSize = kRows * kCols;
  // Inputs each in their own allocation (a list), outputs back to back, a permutation per item.
  std::vector<Buffer> inputs;
  std::vector<const float*> list;
  for (std::int64_t i = 0; i < kCount; ++i) {
    inputs.push_back(test::to_backend(backend, test::random_floats(rng, kSize)));
    list.push_back(inputs.back().as<float>());
  }
  std::vector<int> row_perms, col_perms;
  for (std::int64_t i = 0; i < kCount; ++i) {
    std::vector<int> r(kRows), c(kCols);
    std::iota(r.begin(), r.end(), 0);
    std::iota(c.begin(), c.end(), 0);
    std::shuffle(r.begin(), r.end(), rng);
    std::shuffle(c.begin(), c.end(), rng);
    row_perms.insert(row_perms.end(), r.begin(), r.end());
    col_perms.insert(col_perms.end(), c.begin(), c.end());
  }
  Buffer pr = test::to_backend(backend, row_perms);
  Buffer pc = test::to_backend(backend, col_perms);
  Buffer by_rows = backend.allocate(kSize * kCount * sizeof(float));
  Buffer by_cols = backend.allocate(kSize * kCount * sizeof(float));
  Buffer one = backend.allocate(kSize * sizeof(float));
  const Items<const float> in(list.data(), list.size());
  backend.permute_rows(in, kRows, kCols, pr.as<int>(),
                       back_to_back(by_rows.as<float>(), kCount, kSize));
  backend.permute_columns(in, kRows, kCols, pc.as<int>(),
                          back_to_back(by_cols.as<float>(), kCount, kSize));
  const auto rows = test::to_host<float>(backend, by_rows, kSize * kCount);
  const auto cols = test::to_host<float>(backend, by_cols, kSize * kCount);
  for (std::int64_t i = 0; i < kCount; ++i) {
    backend.permute_rows(list[i], kRows, kCols, pr.as<int>() + i * kRows, one.as<float>());
    EXPECT_EQ(test::to_host<float>(backend, one, kSize),
              std::vector<float>(rows.begin() + i * kSize, rows.begin() + (i + 1) * kSize))
        << "rows, item " << i;
    backend.permute_columns(list[i], kRows, kCols, pc.as<int>() + i * kCols, one.as<float>());
    EXPECT_EQ(test::to_host<float>(backend, one, kSize),
              std::vector<float>(cols.begin() + i * kSize, cols.begin() + (i + 1) * kSize))
        << "columns, item " << i;
  }
  // Operands with different item counts are an error, counted or not.
  EXPECT_THROW(backend.permute_rows(in, kRows, kCols, pr.as<int>(),
                                    back_to_back(by_rows.as<float>(), kCount - 1, kSize)),
               Error);
}

}  // namespace
}  // namespace canzona::backend::cpu
