// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shampoo reference: the formulas of shampoo_reference.hpp in order.
#include "canzona/optim/reference/shampoo_reference.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/reference/linalg.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace canzona::optim::reference {

ShampooReference::ShampooReference(ShampooOptions options) : options_(options) {}

void ShampooReference::init(std::int64_t rows, std::int64_t cols) {
  has_left_ = rows <= options_.max_precond_dim;
  has_right_ = cols <= options_.max_precond_dim;
  if (has_left_) {
    left_ = zeros(rows, rows);
  }
  if (has_right_) {
    right_ = zeros(cols, cols);
  }
  momentum_ = zeros(rows, cols);
  graft_ = zeros(rows, cols);
}

void ShampooReference::step(Matrix& param, const Matrix& grad) {
  CANZONA_CHECK(param.same_shape(grad),
                fmt::format("ShampooReference: param {}x{} and grad {}x{} differ", param.rows,
                            param.cols, grad.rows, grad.cols));
  if (steps_ == 0) {
    init(grad.rows, grad.cols);
  }
  CANZONA_CHECK(momentum_.same_shape(grad),
                fmt::format("ShampooReference: grad {}x{} but state {}x{}", grad.rows, grad.cols,
                            momentum_.rows, momentum_.cols));
  const ShampooOptions& o = options_;
  const std::int64_t t = ++steps_;
  const auto td = static_cast<double>(t);

  momentum_ = axpby(o.beta1, momentum_, 1.0 - o.beta1, grad);
  const Matrix m_hat = scale(momentum_, 1.0 / (1.0 - std::pow(o.beta1, td)));

  if (has_left_) {
    left_ = axpby(o.beta2, left_, 1.0 - o.beta2, matmul(grad, transpose(grad)));
  }
  if (has_right_) {
    right_ = axpby(o.beta2, right_, 1.0 - o.beta2, matmul(transpose(grad), grad));
  }
  const bool refresh =
      o.refresh_at_multiples ? t % o.refresh_interval == 0 : (t - 1) % o.refresh_interval == 0;
  if (refresh) {
    const double c = o.bias_correct_statistics ? 1.0 / (1.0 - std::pow(o.beta2, td)) : 1.0;
    if (has_left_) {
      left_root_ = inverse_root(scale(left_, c), 4.0, o.epsilon);
    }
    if (has_right_) {
      right_root_ = inverse_root(scale(right_, c), 4.0, o.epsilon);
    }
  }
  const bool preconditioned = t >= o.start_preconditioning_step;
  Matrix shampoo_dir = m_hat;
  if (preconditioned && has_left_) {
    shampoo_dir = matmul(left_root_, shampoo_dir);
  }
  if (preconditioned && has_right_) {
    shampoo_dir = matmul(shampoo_dir, right_root_);
  }

  graft_ = axpby(o.graft_beta2, graft_, 1.0 - o.graft_beta2, square(grad));
  const Matrix graft_denom =
      add_scalar(sqrt(scale(graft_, 1.0 / (1.0 - std::pow(o.graft_beta2, td)))), o.graft_epsilon);
  const Matrix graft_dir = divide(m_hat, graft_denom);

  last_direction_ = !preconditioned
                        ? graft_dir
                        : scale(shampoo_dir, frobenius_norm(graft_dir) /
                                                 std::max(frobenius_norm(shampoo_dir), 1e-30));
  param = axpby(1.0 - o.lr * o.weight_decay, param, -o.lr, last_direction_);
}

}  // namespace canzona::optim::reference
