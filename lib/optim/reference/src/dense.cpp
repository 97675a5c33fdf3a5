// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Plain loops over row-major doubles; shape errors throw canzona::Error via CANZONA_CHECK.
#include "canzona/optim/reference/dense.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace canzona::optim::reference {
namespace {

std::size_t size_of(std::int64_t rows, std::int64_t cols) {
  CANZONA_CHECK(rows >= 0 && cols >= 0, fmt::format("negative matrix shape {}x{}", rows, cols));
  return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
}

void check_same_shape(const Matrix& a, const Matrix& b, const char* op) {
  CANZONA_CHECK(a.same_shape(b), fmt::format("{}: shapes {}x{} and {}x{} differ", op, a.rows,
                                             a.cols, b.rows, b.cols));
}

template <typename F>
Matrix map(const Matrix& a, F f) {
  Matrix out = a;
  for (double& x : out.data) {
    x = f(x);
  }
  return out;
}

template <typename F>
Matrix zip(const Matrix& a, const Matrix& b, const char* op, F f) {
  check_same_shape(a, b, op);
  Matrix out = a;
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = f(a.data[i], b.data[i]);
  }
  return out;
}

}  // namespace

Matrix zeros(std::int64_t rows, std::int64_t cols) {
  return Matrix{rows, cols, std::vector<double>(size_of(rows, cols), 0.0)};
}

Matrix identity(std::int64_t n) {
  Matrix m = zeros(n, n);
  for (std::int64_t i = 0; i < n; ++i) {
    m(i, i) = 1.0;
  }
  return m;
}

Matrix from_floats(std::int64_t rows, std::int64_t cols, std::span<const float> values) {
  CANZONA_CHECK(
      values.size() == size_of(rows, cols),
      fmt::format("from_floats: {} values for a {}x{} matrix", values.size(), rows, cols));
  return Matrix{rows, cols, std::vector<double>(values.begin(), values.end())};
}

Matrix from_doubles(std::int64_t rows, std::int64_t cols, std::span<const double> values) {
  CANZONA_CHECK(
      values.size() == size_of(rows, cols),
      fmt::format("from_doubles: {} values for a {}x{} matrix", values.size(), rows, cols));
  return Matrix{rows, cols, std::vector<double>(values.begin(), values.end())};
}

Matrix from_rows(std::initializer_list<std::initializer_list<double>> rows) {
  Matrix m;
  m.rows = static_cast<std::int64_t>(rows.size());
  m.cols = rows.size() == 0 ? 0 : static_cast<std::int64_t>(rows.begin()->size());
  for (const auto& row : rows) {
    CANZONA_CHECK(static_cast<std::int64_t>(row.size()) == m.cols, "from_rows: ragged rows");
    m.data.insert(m.data.end(), row.begin(), row.end());
  }
  return m;
}

std::vector<float> to_floats(const Matrix& m) {
  std::vector<float> out(m.data.size());
  std::transform(m.data.begin(), m.data.end(), out.begin(),
                 [](double x) { return static_cast<float>(x); });
  return out;
}

Matrix random_normal(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  Matrix m = zeros(rows, cols);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (double& x : m.data) {
    x = normal(rng);
  }
  return m;
}

Matrix diagonal(std::span<const double> values) {
  const auto n = static_cast<std::int64_t>(values.size());
  Matrix m = zeros(n, n);
  for (std::int64_t i = 0; i < n; ++i) {
    m(i, i) = values[static_cast<std::size_t>(i)];
  }
  return m;
}

Matrix transpose(const Matrix& a) {
  Matrix t = zeros(a.cols, a.rows);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t j = 0; j < a.cols; ++j) {
      t(j, i) = a(i, j);
    }
  }
  return t;
}

Matrix matmul(const Matrix& a, const Matrix& b) {
  CANZONA_CHECK(a.cols == b.rows,
                fmt::format("matmul: {}x{} times {}x{}", a.rows, a.cols, b.rows, b.cols));
  Matrix c = zeros(a.rows, b.cols);
  for (std::int64_t i = 0; i < a.rows; ++i) {
    for (std::int64_t k = 0; k < a.cols; ++k) {
      const double aik = a(i, k);
      for (std::int64_t j = 0; j < b.cols; ++j) {
        c(i, j) += aik * b(k, j);
      }
    }
  }
  return c;
}

Matrix add(const Matrix& a, const Matrix& b) {
  return zip(a, b, "add", [](double x, double y) { return x + y; });
}

Matrix subtract(const Matrix& a, const Matrix& b) {
  return zip(a, b, "subtract", [](double x, double y) { return x - y; });
}

Matrix scale(const Matrix& a, double alpha) {
  return map(a, [alpha](double x) { return alpha * x; });
}

Matrix axpby(double alpha, const Matrix& a, double beta, const Matrix& b) {
  return zip(a, b, "axpby", [alpha, beta](double x, double y) { return alpha * x + beta * y; });
}

Matrix hadamard(const Matrix& a, const Matrix& b) {
  return zip(a, b, "hadamard", [](double x, double y) { return x * y; });
}

Matrix divide(const Matrix& a, const Matrix& b) {
  return zip(a, b, "divide", [](double x, double y) { return x / y; });
}

Matrix square(const Matrix& a) {
  return map(a, [](double x) { return x * x; });
}

Matrix sqrt(const Matrix& a) {
  return map(a, [](double x) { return std::sqrt(x); });
}

Matrix add_scalar(const Matrix& a, double s) {
  return map(a, [s](double x) { return x + s; });
}

double frobenius_norm(const Matrix& a) {
  // Scaled sum of squares (LAPACK dnrm2 idea): exact enough and safe for tiny/huge entries.
  const double amax = max_abs(a);
  if (amax == 0.0 || !std::isfinite(amax)) {
    return amax;
  }
  double sum = 0.0;
  for (const double x : a.data) {
    const double y = x / amax;
    sum += y * y;
  }
  return amax * std::sqrt(sum);
}

double rms(const Matrix& a) {
  if (a.data.empty()) {
    return 0.0;
  }
  return frobenius_norm(a) / std::sqrt(static_cast<double>(a.data.size()));
}

double max_abs_diff(const Matrix& a, const Matrix& b) {
  check_same_shape(a, b, "max_abs_diff");
  double m = 0.0;
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    const double d = std::abs(a.data[i] - b.data[i]);
    // std::max would drop a NaN; an oracle must make it visible to `diff <= tol` instead.
    if (std::isnan(d)) {
      return d;
    }
    m = std::max(m, d);
  }
  return m;
}

double max_abs(const Matrix& a) {
  double m = 0.0;
  for (const double x : a.data) {
    if (std::isnan(x)) {
      return x;
    }
    m = std::max(m, std::abs(x));
  }
  return m;
}

double frobenius_distance(const Matrix& a, const Matrix& b) {
  return frobenius_norm(subtract(a, b));
}

}  // namespace canzona::optim::reference
