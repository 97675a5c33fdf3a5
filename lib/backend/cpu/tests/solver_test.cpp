// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// eigh and orthonormalize, checked by their defining properties in double precision: the
// eigen-residual and orthonormality, ascending order, eigenvectors as COLUMNS; QᵀQ = I and
// R = QᵀA upper triangular with a positive diagonal and Q·R = A.
//
// Tolerance 1e-4 (relative to ‖A‖_F where a residual has A's scale): backward-stable fp32
// solvers reach about c·n·u·‖A‖ with u = 6e-8, i.e. ~1e-5 at n = 64, so 1e-4 leaves a margin
// without hiding a wrong layout (a transposed V gives residuals of order ‖A‖).
#include "cpu_backend.hpp"

#include <canzona/core/error.hpp>
#include "test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace canzona::backend::cpu {
namespace {

constexpr double kTol = 1e-4;

double frobenius(const std::vector<float>& a) {
  double s = 0.0;
  for (float x : a) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

Buffer workspace(CpuBackend& backend, std::size_t bytes) { return backend.allocate(bytes); }

TEST(CpuSolverTest, EighRandomSymmetricBatches) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(20);
  CpuBackend backend;
  constexpr std::int64_t kCount = 3;
  for (std::int64_t n : {1, 2, 7, 64}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<float> a(static_cast<std::size_t>(kCount * n * n));
    for (std::int64_t item = 0; item < kCount; ++item) {
      const std::vector<float> x = test::random_floats(rng, static_cast<std::size_t>(n * n));
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t c = 0; c < n; ++c) {
          a[item * n * n + r * n + c] = 0.5f * (x[r * n + c] + x[c * n + r]);
        }
      }
    }
    Buffer a_buf = test::to_backend(backend, a);
    Buffer w_buf = backend.allocate(static_cast<std::size_t>(kCount * n) * sizeof(float));
    Buffer ws = workspace(backend, backend.eigh_workspace_bytes(n, kCount));
    backend.eigh(n, kCount, a_buf.as<float>(), w_buf.as<float>(), ws.data());
    const auto v = test::to_host<float>(backend, a_buf, a.size());
    const auto w = test::to_host<float>(backend, w_buf, static_cast<std::size_t>(kCount * n));

    for (std::int64_t item = 0; item < kCount; ++item) {
      SCOPED_TRACE("item " + std::to_string(item));
      const float* ai = a.data() + item * n * n;
      const float* vi = v.data() + item * n * n;
      const float* wi = w.data() + item * n;
      const double norm_a = frobenius(std::vector<float>(ai, ai + n * n));
      for (std::int64_t j = 1; j < n; ++j) EXPECT_LE(wi[j - 1], wi[j]) << "not ascending at " << j;
      double residual = 0.0, orth = 0.0;
      for (std::int64_t r = 0; r < n; ++r) {
        for (std::int64_t j = 0; j < n; ++j) {
          // (A·V − V·Λ)[r, j] with v[r·n + j] = component r of eigenvector j.
          double av = 0.0, vtv = 0.0;
          for (std::int64_t p = 0; p < n; ++p) {
            av += static_cast<double>(ai[r * n + p]) * vi[p * n + j];
            vtv += static_cast<double>(vi[p * n + r]) * vi[p * n + j];
          }
          const double e = av - static_cast<double>(vi[r * n + j]) * wi[j];
          residual += e * e;
          const double o = vtv - (r == j ? 1.0 : 0.0);
          orth += o * o;
        }
      }
      EXPECT_LE(std::sqrt(residual), kTol * std::max(norm_a, 1.0)) << "‖A·V − V·Λ‖_F";
      EXPECT_LE(std::sqrt(orth), kTol) << "‖VᵀV − I‖_F";
    }
  }
}

// LAPACK reports workspace sizes in a float: at n = 4096 ssyevd's 1 + 6n + 2n² = 33,579,009
// elements round down to 33,579,008 and the call fails with info = -9 unless the size is read
// back rounded up. Checking the size needs no 4096×4096 decomposition.
TEST(CpuSolverTest, EighWorkspaceCoversLapacksMinimumWhereTheFloatQueryRoundsDown) {
  CpuBackend backend;
  for (const std::int64_t n : {2, 4096, 5120, 10000}) {
    const std::size_t minimum = static_cast<std::size_t>(1 + 6 * n + 2 * n * n) * sizeof(float) +
                                static_cast<std::size_t>(3 + 5 * n) * sizeof(int);
    EXPECT_GE(backend.eigh_workspace_bytes(n, 1), minimum) << "n = " << n;
  }
}

TEST(CpuSolverTest, EighReturnsEigenvectorsAsColumns) {
  CpuBackend backend;
  // [[2, 1], [1, 2]]: λ = 1 for ±(1, −1)/√2 and λ = 3 for ±(1, 1)/√2.
  Buffer a = test::to_backend(backend, std::vector<float>{2, 1, 1, 2});
  Buffer w = backend.allocate(2 * sizeof(float));
  Buffer ws = workspace(backend, backend.eigh_workspace_bytes(2, 1));
  backend.eigh(2, 1, a.as<float>(), w.as<float>(), ws.data());
  const auto v = test::to_host<float>(backend, a, 4);
  const auto lambda = test::to_host<float>(backend, w, 2);
  EXPECT_NEAR(lambda[0], 1.0f, 1e-6f);
  EXPECT_NEAR(lambda[1], 3.0f, 1e-6f);
  // Column 0 = v[0], v[2] has opposite signs; column 1 = v[1], v[3] has equal signs.
  EXPECT_NEAR(v[0], -v[2], 1e-6f);
  EXPECT_NEAR(v[1], v[3], 1e-6f);
  EXPECT_NEAR(std::fabs(v[0]), std::sqrt(0.5f), 1e-6f);

  // diag(3, 1, 2): eigenvalues 1, 2, 3 with eigenvectors ±e1, ±e2, ±e0 in columns 0, 1, 2.
  Buffer d = test::to_backend(backend, std::vector<float>{3, 0, 0, 0, 1, 0, 0, 0, 2});
  Buffer dw = backend.allocate(3 * sizeof(float));
  Buffer dws = workspace(backend, backend.eigh_workspace_bytes(3, 1));
  backend.eigh(3, 1, d.as<float>(), dw.as<float>(), dws.data());
  EXPECT_EQ(test::to_host<float>(backend, dw, 3), (std::vector<float>{1, 2, 3}));
  const auto dv = test::to_host<float>(backend, d, 9);
  const float expected_abs[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
  for (int i = 0; i < 9; ++i) EXPECT_EQ(std::fabs(dv[i]), expected_abs[i]) << "element " << i;
}

void check_orthonormalize(CpuBackend& backend, std::mt19937_64& rng, std::int64_t m,
                          std::int64_t n) {
  SCOPED_TRACE("m = " + std::to_string(m) + ", n = " + std::to_string(n));
  const std::vector<float> a = test::random_floats(rng, static_cast<std::size_t>(m * n));
  Buffer buf = test::to_backend(backend, a);
  Buffer ws = workspace(backend, backend.orthonormalize_workspace_bytes(m, n));
  backend.orthonormalize(m, n, buf.as<float>(), ws.data());
  const auto q = test::to_host<float>(backend, buf, a.size());
  const double norm_a = frobenius(a);

  double orth = 0.0, recon = 0.0;
  std::vector<double> r(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double qtq = 0.0, qta = 0.0;
      for (std::int64_t p = 0; p < m; ++p) {
        qtq += static_cast<double>(q[p * n + i]) * q[p * n + j];
        qta += static_cast<double>(q[p * n + i]) * a[p * n + j];
      }
      const double o = qtq - (i == j ? 1.0 : 0.0);
      orth += o * o;
      r[i * n + j] = qta;
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_GT(r[i * n + i], 0.0) << "diag(R)[" << i << "]";
    for (std::int64_t j = 0; j < i; ++j) {
      EXPECT_LE(std::fabs(r[i * n + j]), kTol * norm_a) << "R[" << i << "," << j << "] below diag";
    }
  }
  for (std::int64_t p = 0; p < m; ++p) {
    for (std::int64_t j = 0; j < n; ++j) {
      double qr = 0.0;
      for (std::int64_t i = 0; i <= j; ++i) qr += q[p * n + i] * r[i * n + j];
      const double e = qr - a[p * n + j];
      recon += e * e;
    }
  }
  EXPECT_LE(std::sqrt(orth), kTol) << "‖QᵀQ − I‖_F";
  EXPECT_LE(std::sqrt(recon), kTol * norm_a) << "‖Q·triu(R) − A‖_F";
}

TEST(CpuSolverTest, OrthonormalizeTallAndSquare) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(21);
  CpuBackend backend;
  const std::int64_t shapes[][2] = {{1, 1}, {7, 3}, {50, 20}, {16, 16}, {64, 1}, {300, 64}};
  for (const auto& shape : shapes) check_orthonormalize(backend, rng, shape[0], shape[1]);
}

TEST(CpuSolverTest, OrthonormalizeSignConvention) {
  CpuBackend backend;
  // −I: LAPACK leaves it as Q = I, R = −I (nothing to reflect); diag(R) ≥ 0 demands Q = −I.
  Buffer a = test::to_backend(backend, std::vector<float>{-1, 0, 0, 0, -1, 0, 0, 0, -1});
  Buffer ws = workspace(backend, backend.orthonormalize_workspace_bytes(3, 3));
  backend.orthonormalize(3, 3, a.as<float>(), ws.data());
  EXPECT_EQ(test::to_host<float>(backend, a, 9),
            (std::vector<float>{-1, 0, 0, 0, -1, 0, 0, 0, -1}));

  // Row-major [[0, 2], [3, 0]]: columns (0, 3) and (2, 0) give Q = [[0, 1], [1, 0]].
  Buffer b = test::to_backend(backend, std::vector<float>{0, 2, 3, 0});
  Buffer ws2 = workspace(backend, backend.orthonormalize_workspace_bytes(2, 2));
  backend.orthonormalize(2, 2, b.as<float>(), ws2.data());
  const auto q = test::to_host<float>(backend, b, 4);
  EXPECT_NEAR(q[0], 0.0f, 1e-7f);
  EXPECT_NEAR(q[1], 1.0f, 1e-7f);
  EXPECT_NEAR(q[2], 1.0f, 1e-7f);
  EXPECT_NEAR(q[3], 0.0f, 1e-7f);
}

TEST(CpuSolverTest, OrthonormalizeRejectsWideMatrices) {
  CpuBackend backend;
  EXPECT_THROW(backend.orthonormalize_workspace_bytes(2, 3), Error);
}

}  // namespace
}  // namespace canzona::backend::cpu
