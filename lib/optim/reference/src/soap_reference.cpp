// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SOAP reference: the formulas of soap_reference.hpp in order.
#include "canzona/optim/reference/soap_reference.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/reference/linalg.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace canzona::optim::reference {
namespace {

// Regulariser of the initial eigendecomposition (paper-spec §5.3); it shifts every eigenvalue
// equally, so it changes no eigenvector, only keeps a rank-deficient GG from being singular.
constexpr double kInitShift = 1e-8;

void check_side(int side) {
  CANZONA_CHECK(side == 0 || side == 1, fmt::format("SOAP side {} is not 0 or 1", side));
}

// G_i·G_iᵀ with G_0 = G, G_1 = Gᵀ.
Matrix outer_product(const Matrix& grad, int side) {
  return side == 0 ? matmul(grad, transpose(grad)) : matmul(transpose(grad), grad);
}

}  // namespace

Matrix eigenvectors_descending(const Matrix& a) {
  const Eigh e = eigh_jacobi(a);
  const std::int64_t n = a.rows;
  Matrix q = zeros(n, n);
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < n; ++i) {
      q(i, j) = e.vectors(i, n - 1 - j);
    }
  }
  return q;
}

std::vector<std::int64_t> argsort_descending(const std::vector<double>& values) {
  std::vector<std::int64_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&values](std::int64_t i, std::int64_t j) {
    return values[static_cast<std::size_t>(i)] > values[static_cast<std::size_t>(j)];
  });
  return order;
}

SoapReference::SoapReference(SoapOptions options) : options_(options) {}

double SoapReference::shampoo_beta() const {
  return options_.shampoo_beta < 0.0 ? options_.beta2 : options_.shampoo_beta;
}

bool SoapReference::has_q(int side) const {
  check_side(side);
  return has_q_[side];
}

const Matrix& SoapReference::gg(int side) const {
  check_side(side);
  return gg_[side];
}

const Matrix& SoapReference::q(int side) const {
  check_side(side);
  return q_[side];
}

Matrix SoapReference::project(const Matrix& x) const {
  Matrix y = x;
  if (has_q_[0]) {
    y = matmul(transpose(q_[0]), y);
  }
  if (has_q_[1]) {
    y = matmul(y, q_[1]);
  }
  return y;
}

Matrix SoapReference::project_back(const Matrix& x) const {
  Matrix y = x;
  if (has_q_[0]) {
    y = matmul(q_[0], y);
  }
  if (has_q_[1]) {
    y = matmul(y, transpose(q_[1]));
  }
  return y;
}

void SoapReference::init(const Matrix& grad) {
  const double beta_s = shampoo_beta();
  has_q_[0] = grad.rows <= options_.max_precond_dim;
  has_q_[1] = grad.cols <= options_.max_precond_dim;
  for (int side = 0; side < 2; ++side) {
    if (has_q_[side]) {
      gg_[side] = scale(outer_product(grad, side), 1.0 - beta_s);
      q_[side] =
          eigenvectors_descending(add(gg_[side], scale(identity(gg_[side].rows), kInitShift)));
    }
  }
  exp_avg_ = zeros(grad.rows, grad.cols);
  exp_avg_sq_ = zeros(grad.rows, grad.cols);
  initialized_ = true;
}

void SoapReference::refresh(int side) {
  Matrix& q = q_[side];
  const Matrix& gg = gg_[side];
  const Matrix rotated = matmul(transpose(q), matmul(gg, q));
  std::vector<double> lambda(static_cast<std::size_t>(q.cols));
  for (std::int64_t j = 0; j < q.cols; ++j) {
    lambda[static_cast<std::size_t>(j)] = rotated(j, j);
  }
  const std::vector<std::int64_t> pi = argsort_descending(lambda);

  // V' = V.index_select(side, π) and Q' = Q[:, π].
  Matrix v = exp_avg_sq_;
  Matrix q_sorted = q;
  for (std::int64_t k = 0; k < q.cols; ++k) {
    const std::int64_t src = pi[static_cast<std::size_t>(k)];
    for (std::int64_t i = 0; i < q.rows; ++i) {
      q_sorted(i, k) = q(i, src);
    }
    if (side == 0) {
      for (std::int64_t j = 0; j < v.cols; ++j) {
        v(k, j) = exp_avg_sq_(src, j);
      }
    } else {
      for (std::int64_t i = 0; i < v.rows; ++i) {
        v(i, k) = exp_avg_sq_(i, src);
      }
    }
  }
  exp_avg_sq_ = std::move(v);
  q = qr_householder(matmul(gg, q_sorted)).q;
}

void SoapReference::step(Matrix& param, const Matrix& grad) {
  CANZONA_CHECK(param.same_shape(grad),
                fmt::format("SoapReference: param {}x{} and grad {}x{} differ", param.rows,
                            param.cols, grad.rows, grad.cols));
  if (!initialized_) {
    init(grad);
    return;
  }
  CANZONA_CHECK(exp_avg_.same_shape(grad),
                fmt::format("SoapReference: grad {}x{} but state {}x{}", grad.rows, grad.cols,
                            exp_avg_.rows, exp_avg_.cols));
  const SoapOptions& o = options_;
  const std::int64_t t = ++steps_;
  const auto td = static_cast<double>(t);

  const Matrix g_hat = project(grad);
  exp_avg_ = axpby(o.beta1, exp_avg_, 1.0 - o.beta1, grad);
  exp_avg_sq_ = axpby(o.beta2, exp_avg_sq_, 1.0 - o.beta2, square(g_hat));
  Matrix n = project_back(divide(project(exp_avg_), add_scalar(sqrt(exp_avg_sq_), o.eps)));
  if (o.normalize_grads) {
    n = scale(n, 1.0 / (1e-30 + rms(n)));
  }
  if (o.correct_bias) {
    n = scale(n, std::sqrt(1.0 - std::pow(o.beta2, td)) / (1.0 - std::pow(o.beta1, td)));
  }

  const double beta_s = shampoo_beta();
  for (int side = 0; side < 2; ++side) {
    if (has_q_[side]) {
      gg_[side] = axpby(beta_s, gg_[side], 1.0 - beta_s, outer_product(grad, side));
    }
  }
  if (t % o.precondition_frequency == 0) {
    for (int side = 0; side < 2; ++side) {
      if (has_q_[side]) {
        refresh(side);
      }
    }
  }

  last_direction_ = n;
  param = axpby(1.0, param, -o.lr, n);
  param = scale(param, 1.0 - o.lr * o.weight_decay);
}

}  // namespace canzona::optim::reference
