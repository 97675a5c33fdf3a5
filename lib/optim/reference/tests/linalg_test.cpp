// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Jacobi eigh, Householder QR, one-sided Jacobi SVD and inverse roots: residual and
// orthogonality bounds on fresh random inputs plus exact small cases.
#include "test_util.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/reference/linalg.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace canzona::optim::reference {
namespace {

using test::make_rng;
using test::matrices_near;
using test::orthonormality_error;
using test::random_matrix;
using test::random_orthonormal;
using test::seed_message;

Matrix random_symmetric(std::int64_t n, std::mt19937_64& rng) {
  const Matrix b = random_matrix(n, n, rng);
  return add(b, transpose(b));
}

void expect_valid_eigh(const Matrix& a, const Eigh& e) {
  const double norm = frobenius_norm(a);
  const Matrix lambda = diagonal(e.values);
  EXPECT_LE(frobenius_distance(matmul(a, e.vectors), matmul(e.vectors, lambda)),
            1e-12 * std::max(norm, 1.0))
      << "‖A·Q − Q·Λ‖_F, n = " << a.rows;
  EXPECT_LE(orthonormality_error(e.vectors), 1e-12) << "‖QᵀQ − I‖_F, n = " << a.rows;
  EXPECT_TRUE(std::is_sorted(e.values.begin(), e.values.end())) << "eigenvalues ascending";
  double trace = 0.0;
  for (std::int64_t i = 0; i < a.rows; ++i) {
    trace += a(i, i);
  }
  double sum = 0.0;
  for (const double v : e.values) {
    sum += v;
  }
  EXPECT_NEAR(sum, trace, 1e-12 * std::max(norm, 1.0)) << "Σλ = tr(A)";
}

TEST(LinalgReferenceTest, EighOf2x2MatchesHandValues) {
  const Eigh e = eigh_jacobi(from_rows({{2, 1}, {1, 2}}));
  ASSERT_EQ(e.values.size(), 2U);
  EXPECT_NEAR(e.values[0], 1.0, 1e-15);
  EXPECT_NEAR(e.values[1], 3.0, 1e-15);
  // Sign convention: largest-magnitude entry positive, the first one on a tie.
  const double h = std::sqrt(0.5);
  EXPECT_TRUE(matrices_near(e.vectors, from_rows({{h, h}, {-h, h}}), 1e-15));
}

TEST(LinalgReferenceTest, EighOfDiagonalIsExactPermutation) {
  const Eigh e = eigh_jacobi(from_rows({{3, 0, 0}, {0, -1, 0}, {0, 0, 2}}));
  EXPECT_EQ(e.values, (std::vector<double>{-1, 2, 3}));
  EXPECT_EQ(e.vectors.data, (std::vector<double>{0, 0, 1, 1, 0, 0, 0, 1, 0}));
}

TEST(LinalgReferenceTest, EighResidualsOnRandomSymmetric) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(101);
  for (const std::int64_t n : {1, 2, 3, 5, 8, 16}) {
    const Matrix a = random_symmetric(n, rng);
    const Eigh e = eigh_jacobi(a);
    expect_valid_eigh(a, e);
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t largest = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        if (std::abs(e.vectors(i, j)) > std::abs(e.vectors(largest, j))) {
          largest = i;
        }
      }
      EXPECT_GT(e.vectors(largest, j), 0.0) << "sign convention, column " << j;
    }
  }
}

TEST(LinalgReferenceTest, EighOfKnownSpectrumRecoversEigenvalues) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(102);
  // Repeated and zero eigenvalues: a rank-deficient PSD statistic as Shampoo/SOAP produce.
  const std::vector<double> lambda = {0.0, 0.0, 1e-3, 2.0, 2.0, 7.5};
  const Matrix q = random_orthonormal(6, 6, rng);
  const Matrix a = matmul(matmul(q, diagonal(lambda)), transpose(q));
  const Eigh e = eigh_jacobi(a);
  expect_valid_eigh(a, e);
  for (std::size_t i = 0; i < lambda.size(); ++i) {
    EXPECT_NEAR(e.values[i], lambda[i], 1e-13 * 7.5) << "λ_" << i;
  }
}

TEST(LinalgReferenceTest, EighRejectsNonSquare) {
  EXPECT_THROW(eigh_jacobi(zeros(2, 3)), canzona::Error);
}

void expect_valid_qr(const Matrix& a, const Qr& qr) {
  ASSERT_EQ(qr.q.rows, a.rows);
  ASSERT_EQ(qr.q.cols, a.cols);
  ASSERT_EQ(qr.r.rows, a.cols);
  EXPECT_LE(orthonormality_error(qr.q), 1e-13) << "‖QᵀQ − I‖_F";
  EXPECT_LE(frobenius_distance(matmul(qr.q, qr.r), a), 1e-13 * std::max(frobenius_norm(a), 1.0))
      << "‖Q·R − A‖_F";
  for (std::int64_t i = 0; i < qr.r.rows; ++i) {
    EXPECT_GE(qr.r(i, i), 0.0) << "diag(R)_" << i;
    for (std::int64_t j = 0; j < i; ++j) {
      EXPECT_EQ(qr.r(i, j), 0.0) << "R upper triangular at " << i << "," << j;
    }
  }
}

TEST(LinalgReferenceTest, QrOfColumnMatchesHandValues) {
  const Qr pos = qr_householder(from_rows({{3}, {4}}));
  EXPECT_TRUE(matrices_near(pos.q, from_rows({{0.6}, {0.8}}), 1e-15));
  EXPECT_NEAR(pos.r(0, 0), 5.0, 1e-15);
  const Qr neg = qr_householder(from_rows({{-3}, {-4}}));
  EXPECT_TRUE(matrices_near(neg.q, from_rows({{-0.6}, {-0.8}}), 1e-15));
  EXPECT_NEAR(neg.r(0, 0), 5.0, 1e-15);
}

TEST(LinalgReferenceTest, QrIsOrthonormalTriangularAndExact) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(103);
  for (const auto& [m, n] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {7, 4}, {6, 6}, {3, 3}, {6, 1}, {1, 1}, {16, 9}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << n);
    const Matrix a = random_matrix(m, n, rng);
    expect_valid_qr(a, qr_householder(a));
  }
}

TEST(LinalgReferenceTest, QrOfRankDeficientStillOrthonormal) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(104);
  Matrix a = random_matrix(6, 4, rng);
  for (std::int64_t i = 0; i < 6; ++i) {
    a(i, 2) = 2.0 * a(i, 0);  // dependent column
    a(i, 3) = 0.0;            // zero column
  }
  expect_valid_qr(a, qr_householder(a));
}

TEST(LinalgReferenceTest, QrMatchesAnIndependentFactorisation) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(105);
  // A = Q₀·R₀ with known Q₀ (Givens) and R₀ (positive diagonal): the factorisation is unique.
  const Matrix q0 = random_orthonormal(7, 4, rng);
  Matrix r0 = zeros(4, 4);
  for (std::int64_t i = 0; i < 4; ++i) {
    r0(i, i) = 0.5 + static_cast<double>(i);
    for (std::int64_t j = i + 1; j < 4; ++j) {
      r0(i, j) = std::normal_distribution<double>(0.0, 1.0)(rng);
    }
  }
  const Qr qr = qr_householder(matmul(q0, r0));
  EXPECT_TRUE(matrices_near(qr.q, q0, 1e-13));
  EXPECT_TRUE(matrices_near(qr.r, r0, 1e-13));
}

TEST(LinalgReferenceTest, QrRejectsWide) {
  EXPECT_THROW(qr_householder(zeros(2, 3)), canzona::Error);
}

TEST(LinalgReferenceTest, SingularValuesMatchEigenvaluesOfGram) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(106);
  for (const test::Shape& s : test::test_shapes()) {
    SCOPED_TRACE(::testing::Message() << s.rows << "x" << s.cols);
    const Matrix a = random_matrix(s.rows, s.cols, rng);
    const std::vector<double> sigma = singular_values(a);
    // The Gram matrix of the smaller side has exactly the σ² as eigenvalues.
    const Matrix gram = s.rows >= s.cols ? matmul(transpose(a), a) : matmul(a, transpose(a));
    std::vector<double> lambda = eigh_jacobi(gram).values;
    std::reverse(lambda.begin(), lambda.end());
    ASSERT_EQ(sigma.size(), lambda.size());
    const double norm_sq = frobenius_norm(a) * frobenius_norm(a);
    for (std::size_t i = 0; i < sigma.size(); ++i) {
      EXPECT_NEAR(sigma[i] * sigma[i], lambda[i], 1e-12 * norm_sq) << "σ_" << i;
      if (i > 0) {
        EXPECT_GE(sigma[i - 1], sigma[i]) << "descending";
      }
    }
  }
}

TEST(LinalgReferenceTest, SingularValuesOfKnownSpectrum) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(107);
  const std::vector<double> s = {5.0, 2.0, 0.5, 1e-6};
  const test::Svd svd = test::make_svd(8, 5, s, rng);
  const std::vector<double> sigma = singular_values(svd.g);
  ASSERT_EQ(sigma.size(), 5U);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_NEAR(sigma[i], s[i], 1e-13 * 5.0) << "σ_" << i;
  }
  EXPECT_NEAR(sigma[4], 0.0, 1e-13 * 5.0);
  EXPECT_NEAR(singular_values(from_rows({{3, 0, 4}}))[0], 5.0, 1e-15);
}

TEST(LinalgReferenceTest, InverseRootMatchesSpectralFormula) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(108);
  const std::vector<double> lambda = {0.0, 0.25, 1.0, 16.0, 81.0};
  // d/dλ (λ + ε)^(−1/4) ~ ε^(−5/4): ε = 1e-3 keeps round-off in the zero eigenvalue (~1e-14)
  // well below the 1e-10 tolerance.
  const double eps = 1e-3;
  const Matrix q = random_orthonormal(5, 5, rng);
  const Matrix a = matmul(matmul(q, diagonal(lambda)), transpose(q));
  std::vector<double> d;
  for (const double l : lambda) {
    d.push_back(std::pow(l + eps, -0.25));
  }
  const Matrix expected = matmul(matmul(q, diagonal(d)), transpose(q));
  EXPECT_TRUE(matrices_near(inverse_root(a, 4.0, eps), expected, 1e-10, 1e-10));
  // (A + εI)^(−1/4) to the 4th power times (A + εI) is the identity.
  const Matrix r = inverse_root(a, 4.0, eps);
  const Matrix r4 = matmul(matmul(r, r), matmul(r, r));
  EXPECT_TRUE(matrices_near(matmul(r4, add(a, scale(identity(5), eps))), identity(5), 1e-8));
}

TEST(LinalgReferenceTest, InverseRootClampsNegativeEigenvalues) {
  // λ = −1 is treated as 0: (0 + ε)^(−1/2) = 10 for ε = 0.01.
  const Matrix r = inverse_root(from_rows({{-1, 0}, {0, 4}}), 2.0, 0.01);
  EXPECT_NEAR(r(0, 0), 10.0, 1e-12);
  EXPECT_NEAR(r(1, 1), 1.0 / std::sqrt(4.01), 1e-15);
  EXPECT_EQ(r(0, 1), 0.0);
}

}  // namespace
}  // namespace canzona::optim::reference
