// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the reference tests: seeded generators, orthonormal matrices built from
// Givens rotations (independent of the QR and eigh under test) and a matrix comparison.
#pragma once

#include <canzona/optim/reference/dense.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace canzona::optim::reference::test {

/// "seed N (rerun with CANZONA_TEST_SEED=N)", for SCOPED_TRACE.
inline std::string seed_message() {
  std::ostringstream out;
  out << "seed " << canzona::testing::test_seed()
      << " (rerun with CANZONA_TEST_SEED=" << canzona::testing::test_seed() << ")";
  return out.str();
}

/// A generator for one test: the process seed mixed with a per-test salt so that tests drawing
/// in a different order do not share streams.
inline std::mt19937_64 make_rng(std::uint64_t salt) {
  return std::mt19937_64(canzona::testing::test_seed() ^ (salt * 0x9E3779B97F4A7C15ULL));
}

inline Matrix random_matrix(std::int64_t rows, std::int64_t cols, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  Matrix m = zeros(rows, cols);
  for (double& x : m.data) {
    x = normal(rng);
  }
  return m;
}

/// n × k with orthonormal columns: the first k columns of a product of random Givens rotations
/// of the identity (three passes over all pairs). Uses no routine from linalg.hpp.
inline Matrix random_orthonormal(std::int64_t n, std::int64_t k, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
  Matrix q = identity(n);
  for (int pass = 0; pass < 3; ++pass) {
    for (std::int64_t p = 0; p < n; ++p) {
      for (std::int64_t r = p + 1; r < n; ++r) {
        const double theta = angle(rng);
        const double c = std::cos(theta);
        const double s = std::sin(theta);
        for (std::int64_t i = 0; i < n; ++i) {
          const double qp = q(i, p);
          const double qr = q(i, r);
          q(i, p) = c * qp - s * qr;
          q(i, r) = s * qp + c * qr;
        }
      }
    }
  }
  Matrix out = zeros(n, k);
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < k; ++j) {
      out(i, j) = q(i, j);
    }
  }
  return out;
}

/// G = U·diag(s)·Vᵀ (m × n, s.size() ≤ min(m, n)) with its factors, built explicitly.
struct Svd {
  Matrix u;  ///< m × r
  std::vector<double> s;
  Matrix v;  ///< n × r
  Matrix g;
};

inline Svd make_svd(std::int64_t m, std::int64_t n, const std::vector<double>& s,
                    std::mt19937_64& rng) {
  const auto r = static_cast<std::int64_t>(s.size());
  Svd out{random_orthonormal(m, r, rng), s, random_orthonormal(n, r, rng), zeros(m, n)};
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t k = 0; k < r; ++k) {
        sum += out.u(i, k) * s[static_cast<std::size_t>(k)] * out.v(j, k);
      }
      out.g(i, j) = sum;
    }
  }
  return out;
}

/// U·diag(d)·Vᵀ for the factors of `svd`.
inline Matrix compose(const Svd& svd, const std::vector<double>& d) {
  Matrix out = zeros(svd.u.rows, svd.v.rows);
  for (std::int64_t i = 0; i < out.rows; ++i) {
    for (std::int64_t j = 0; j < out.cols; ++j) {
      double sum = 0.0;
      for (std::size_t k = 0; k < d.size(); ++k) {
        sum +=
            svd.u(i, static_cast<std::int64_t>(k)) * d[k] * svd.v(j, static_cast<std::int64_t>(k));
      }
      out(i, j) = sum;
    }
  }
  return out;
}

/// |actual − expected| ≤ atol + rtol·|expected| everywhere, else the worst entry and tolerances.
inline ::testing::AssertionResult matrices_near(const Matrix& actual, const Matrix& expected,
                                                double atol, double rtol = 0.0) {
  if (!actual.same_shape(expected)) {
    return ::testing::AssertionFailure() << "shape " << actual.rows << "x" << actual.cols
                                         << " != " << expected.rows << "x" << expected.cols;
  }
  double worst = -1.0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < actual.data.size(); ++i) {
    const double diff = std::abs(actual.data[i] - expected.data[i]);
    const double excess = diff - (atol + rtol * std::abs(expected.data[i]));
    if (std::isnan(diff) || excess > worst) {
      worst = std::isnan(diff) ? INFINITY : excess;
      at = i;
    }
  }
  if (worst <= 0.0) {
    return ::testing::AssertionSuccess();
  }
  const auto cols = static_cast<std::size_t>(actual.cols);
  return ::testing::AssertionFailure()
         << "entry (" << at / cols << ", " << at % cols << "): actual " << actual.data[at]
         << ", expected " << expected.data[at] << ", |diff| "
         << std::abs(actual.data[at] - expected.data[at]) << " > atol " << atol << " + rtol "
         << rtol << "·|expected|";
}

/// ‖QᵀQ − I‖_F.
inline double orthonormality_error(const Matrix& q) {
  return frobenius_distance(matmul(transpose(q), q), identity(q.cols));
}

/// Shapes every optimizer test runs on: tall, wide, square, tiny, one row.
struct Shape {
  std::int64_t rows;
  std::int64_t cols;
};
inline const std::vector<Shape>& test_shapes() {
  static const std::vector<Shape> shapes = {{7, 4}, {4, 7}, {6, 6}, {3, 5}, {1, 6}};
  return shapes;
}

}  // namespace canzona::optim::reference::test
