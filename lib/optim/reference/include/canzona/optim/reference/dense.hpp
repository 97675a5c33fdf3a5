// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A row-major double-precision matrix and the handful of dense operations the reference
// optimizers need, written as plain loops so that nothing can hide a bug (no BLAS).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace canzona::optim::reference {

/// Dense row-major matrix of doubles: element (i, j) is data[i·cols + j]. Plain data: any
/// rows × cols with data.size() == rows·cols is valid (including 0 × n).
struct Matrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<double> data;

  double& operator()(std::int64_t i, std::int64_t j) {
    return data[static_cast<std::size_t>(i * cols + j)];
  }
  double operator()(std::int64_t i, std::int64_t j) const {
    return data[static_cast<std::size_t>(i * cols + j)];
  }
  std::int64_t numel() const { return rows * cols; }
  bool same_shape(const Matrix& other) const { return rows == other.rows && cols == other.cols; }
};

/// rows × cols of zeros. Throws canzona::Error for negative sizes.
Matrix zeros(std::int64_t rows, std::int64_t cols);
/// n × n identity.
Matrix identity(std::int64_t n);
/// rows × cols from row-major values (size must be rows·cols); widened to double exactly.
Matrix from_floats(std::int64_t rows, std::int64_t cols, std::span<const float> values);
Matrix from_doubles(std::int64_t rows, std::int64_t cols, std::span<const double> values);
/// From nested rows, for hand-written examples: from_rows({{1, 2, 3}, {4, 5, 6}}) is 2 × 3.
Matrix from_rows(std::initializer_list<std::initializer_list<double>> rows);
/// Row-major values rounded to float (for feeding fp32 backends).
std::vector<float> to_floats(const Matrix& m);
/// rows × cols with i.i.d. N(0, 1) entries from std::mt19937_64(seed); deterministic per seed
/// on one standard library.
Matrix random_normal(std::int64_t rows, std::int64_t cols, std::uint64_t seed);
/// n × n diagonal matrix with `diagonal` on the diagonal.
Matrix diagonal(std::span<const double> diagonal);

Matrix transpose(const Matrix& a);
/// a · b with the textbook triple loop (i, k, j order), accumulating in double.
Matrix matmul(const Matrix& a, const Matrix& b);
Matrix add(const Matrix& a, const Matrix& b);
Matrix subtract(const Matrix& a, const Matrix& b);
/// α · a.
Matrix scale(const Matrix& a, double alpha);
/// α · a + β · b (same shapes).
Matrix axpby(double alpha, const Matrix& a, double beta, const Matrix& b);
/// Elementwise product a ⊙ b.
Matrix hadamard(const Matrix& a, const Matrix& b);
/// Elementwise quotient a ⊘ b.
Matrix divide(const Matrix& a, const Matrix& b);
/// Elementwise square a ⊙ a.
Matrix square(const Matrix& a);
/// Elementwise square root (of non-negative entries).
Matrix sqrt(const Matrix& a);
/// a + s (added to every entry).
Matrix add_scalar(const Matrix& a, double s);

/// ‖a‖_F, accumulated with scaling so it neither overflows nor underflows; NaN propagates.
double frobenius_norm(const Matrix& a);
/// sqrt(mean(a²)); 0 for an empty matrix.
double rms(const Matrix& a);
/// max |a_ij − b_ij| (same shapes); NaN when any difference is NaN, so `diff <= tol` fails.
double max_abs_diff(const Matrix& a, const Matrix& b);
/// max |a_ij|; NaN when any entry is NaN.
double max_abs(const Matrix& a);
/// ‖a − b‖_F.
double frobenius_distance(const Matrix& a, const Matrix& b);

}  // namespace canzona::optim::reference
