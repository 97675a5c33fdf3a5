// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// AdamW reference: one loop over the elements.
#include "canzona/optim/reference/adamw_reference.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <cmath>

namespace canzona::optim::reference {

AdamWReference::AdamWReference(AdamWOptions options) : options_(options) {}

void AdamWReference::step(std::vector<double>& param, const std::vector<double>& grad) {
  CANZONA_CHECK(
      param.size() == grad.size(),
      fmt::format("AdamWReference: param has {} elements, grad {}", param.size(), grad.size()));
  if (steps_ == 0) {
    exp_avg_.assign(grad.size(), 0.0);
    exp_avg_sq_.assign(grad.size(), 0.0);
  }
  CANZONA_CHECK(exp_avg_.size() == grad.size(),
                fmt::format("AdamWReference: grad has {} elements but state {}", grad.size(),
                            exp_avg_.size()));
  const AdamWOptions& o = options_;
  const auto t = static_cast<double>(++steps_);
  const double bias1 = 1.0 - std::pow(o.beta1, t);
  const double bias2 = 1.0 - std::pow(o.beta2, t);
  for (std::size_t i = 0; i < grad.size(); ++i) {
    exp_avg_[i] = o.beta1 * exp_avg_[i] + (1.0 - o.beta1) * grad[i];
    exp_avg_sq_[i] = o.beta2 * exp_avg_sq_[i] + (1.0 - o.beta2) * grad[i] * grad[i];
    const double m_hat = exp_avg_[i] / bias1;
    const double v_hat = exp_avg_sq_[i] / bias2;
    param[i] = param[i] * (1.0 - o.lr * o.weight_decay) - o.lr * m_hat / (std::sqrt(v_hat) + o.eps);
  }
}

void AdamWReference::step(Matrix& param, const Matrix& grad) {
  CANZONA_CHECK(param.same_shape(grad),
                fmt::format("AdamWReference: param {}x{} and grad {}x{} differ", param.rows,
                            param.cols, grad.rows, grad.cols));
  step(param.data, grad.data);
}

}  // namespace canzona::optim::reference
