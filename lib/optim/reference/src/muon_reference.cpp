// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Muon reference: the formulas of muon_reference.hpp, one line each.
#include "canzona/optim/reference/muon_reference.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/coefficients.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace canzona::optim::reference {

Matrix newton_schulz(const Matrix& g, int steps, NsCoefficients set, double eps) {
  CANZONA_CHECK(steps >= 0, fmt::format("newton_schulz: negative step count {}", steps));
  const bool transposed = g.rows > g.cols;
  Matrix x = scale(transposed ? transpose(g) : g, 1.0 / std::max(frobenius_norm(g), eps));
  for (int i = 0; i < steps; ++i) {
    const NsTuple t = ns_tuple(set, i);
    const Matrix s = matmul(x, transpose(x));
    const Matrix bm = axpby(t.b, s, t.c, matmul(s, s));
    x = axpby(t.a, x, 1.0, matmul(bm, x));
  }
  return transposed ? transpose(x) : x;
}

double muon_scale(MuonScale scale, std::int64_t rows, std::int64_t cols) {
  const auto a = static_cast<double>(rows);
  const auto b = static_cast<double>(cols);
  switch (scale) {
    case MuonScale::kRmsMatch:
      return 0.2 * std::sqrt(std::max(a, b));
    case MuonScale::kAspectRatio:
      return std::sqrt(std::max(1.0, a / b));
  }
  throw ConfigError(fmt::format("unknown MuonScale (enum value {})", static_cast<int>(scale)));
}

MuonReference::MuonReference(MuonOptions options) : options_(options) {}

void MuonReference::step(Matrix& param, const Matrix& grad) {
  CANZONA_CHECK(param.same_shape(grad),
                fmt::format("MuonReference: param {}x{} and grad {}x{} differ", param.rows,
                            param.cols, grad.rows, grad.cols));
  if (steps_ == 0) {
    momentum_ = zeros(grad.rows, grad.cols);
  }
  CANZONA_CHECK(momentum_.same_shape(grad),
                fmt::format("MuonReference: grad {}x{} but state {}x{}", grad.rows, grad.cols,
                            momentum_.rows, momentum_.cols));
  const double mu = options_.momentum;
  momentum_ = axpby(mu, momentum_, 1.0 - mu, grad);
  const Matrix m = options_.nesterov ? axpby(1.0 - mu, grad, mu, momentum_) : momentum_;
  last_update_ = scale(newton_schulz(m, options_.ns_steps, options_.coefficients, options_.ns_eps),
                       muon_scale(options_.scale, grad.rows, grad.cols));
  param = axpby(1.0 - options_.lr * options_.weight_decay, param, -options_.lr, last_update_);
  ++steps_;
}

}  // namespace canzona::optim::reference
