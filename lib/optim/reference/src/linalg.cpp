// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Jacobi and Householder, kept as close to the textbook pseudocode as possible.
#include "canzona/optim/reference/linalg.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

namespace canzona::optim::reference {
namespace {

// Cyclic Jacobi converges quadratically; 100 sweeps are far beyond what a test matrix needs
// (typically 6–10) and only guard against an endless loop on NaN input.
constexpr int kMaxSweeps = 100;

// tan θ of the rotation that zeroes the (p, q) entry: the smaller root of t² + 2ζt − 1 = 0 with
// ζ = (a_qq − a_pp)/(2·a_pq), written so that it neither cancels nor overflows.
double jacobi_tangent(double app, double aqq, double apq) {
  const double zeta = (aqq - app) / (2.0 * apq);
  const double sign = zeta >= 0.0 ? 1.0 : -1.0;
  if (std::abs(zeta) > 1e150) {
    return 1.0 / (2.0 * zeta);
  }
  return sign / (std::abs(zeta) + std::sqrt(1.0 + zeta * zeta));
}

}  // namespace

Eigh eigh_jacobi(const Matrix& input) {
  CANZONA_CHECK(
      input.rows == input.cols,
      fmt::format("eigh_jacobi needs a square matrix, got {}x{}", input.rows, input.cols));
  const std::int64_t n = input.rows;
  Matrix a = scale(add(input, transpose(input)), 0.5);
  Matrix v = identity(n);
  const double norm = frobenius_norm(a);

  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (std::int64_t p = 0; p < n; ++p) {
      for (std::int64_t q = p + 1; q < n; ++q) {
        const double apq = a(p, q);
        const double app = a(p, p);
        const double aqq = a(q, q);
        if (std::abs(apq) <= 1e-16 * std::sqrt(std::abs(app * aqq)) ||
            std::abs(apq) <= 1e-18 * norm) {
          continue;
        }
        rotated = true;
        const double t = jacobi_tangent(app, aqq, apq);
        const double c = 1.0 / std::sqrt(1.0 + t * t);
        const double s = t * c;
        // A ← Jᵀ·A·J with J the identity except J_pp = J_qq = c, J_pq = s, J_qp = −s.
        for (std::int64_t k = 0; k < n; ++k) {
          const double akp = a(k, p);
          const double akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        for (std::int64_t k = 0; k < n; ++k) {
          const double apk = a(p, k);
          const double aqk = a(q, k);
          a(p, k) = c * apk - s * aqk;
          a(q, k) = s * apk + c * aqk;
        }
        // Exactly zero by construction; writing it avoids carrying round-off into later sweeps.
        a(p, q) = 0.0;
        a(q, p) = 0.0;
        for (std::int64_t k = 0; k < n; ++k) {
          const double vkp = v(k, p);
          const double vkq = v(k, q);
          v(k, p) = c * vkp - s * vkq;
          v(k, q) = s * vkp + c * vkq;
        }
      }
    }
    if (!rotated) {
      break;
    }
  }

  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&a](std::int64_t i, std::int64_t j) { return a(i, i) < a(j, j); });

  Eigh out{std::vector<double>(static_cast<std::size_t>(n)), zeros(n, n)};
  for (std::int64_t j = 0; j < n; ++j) {
    const std::int64_t src = order[static_cast<std::size_t>(j)];
    out.values[static_cast<std::size_t>(j)] = a(src, src);
    std::int64_t largest = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      if (std::abs(v(k, src)) > std::abs(v(largest, src))) {
        largest = k;
      }
    }
    const double sign = v(largest, src) < 0.0 ? -1.0 : 1.0;
    for (std::int64_t k = 0; k < n; ++k) {
      out.vectors(k, j) = sign * v(k, src);
    }
  }
  return out;
}

Qr qr_householder(const Matrix& a) {
  CANZONA_CHECK(a.rows >= a.cols,
                fmt::format("qr_householder needs rows >= cols, got {}x{}", a.rows, a.cols));
  const std::int64_t m = a.rows;
  const std::int64_t n = a.cols;
  Matrix r = a;
  // Householder vectors, one per column, stored full length (zeros above the diagonal).
  std::vector<std::vector<double>> reflectors(static_cast<std::size_t>(n));

  for (std::int64_t j = 0; j < n; ++j) {
    std::vector<double> vj(static_cast<std::size_t>(m), 0.0);
    double norm_sq = 0.0;
    for (std::int64_t i = j; i < m; ++i) {
      norm_sq += r(i, j) * r(i, j);
    }
    const double norm = std::sqrt(norm_sq);
    if (norm == 0.0) {
      continue;  // zero column: H = I, R_jj = 0
    }
    // α = −sign(x₀)·‖x‖ so that x₀ − α never cancels.
    const double alpha = r(j, j) >= 0.0 ? -norm : norm;
    for (std::int64_t i = j; i < m; ++i) {
      vj[static_cast<std::size_t>(i)] = r(i, j);
    }
    vj[static_cast<std::size_t>(j)] -= alpha;
    double v_sq = 0.0;
    for (std::int64_t i = j; i < m; ++i) {
      v_sq += vj[static_cast<std::size_t>(i)] * vj[static_cast<std::size_t>(i)];
    }
    // R ← (I − 2·v·vᵀ/(vᵀv))·R on the trailing block.
    for (std::int64_t k = j; k < n; ++k) {
      double dot = 0.0;
      for (std::int64_t i = j; i < m; ++i) {
        dot += vj[static_cast<std::size_t>(i)] * r(i, k);
      }
      const double f = 2.0 * dot / v_sq;
      for (std::int64_t i = j; i < m; ++i) {
        r(i, k) -= f * vj[static_cast<std::size_t>(i)];
      }
    }
    // Exact values of the reflected column; round-off below the diagonal is not kept.
    r(j, j) = alpha;
    for (std::int64_t i = j + 1; i < m; ++i) {
      r(i, j) = 0.0;
    }
    for (std::int64_t i = j; i < m; ++i) {
      vj[static_cast<std::size_t>(i)] /= std::sqrt(v_sq);
    }
    reflectors[static_cast<std::size_t>(j)] = std::move(vj);
  }

  // Q = H₀·H₁·…·H_{n−1}·[I_n; 0], applied right to left.
  Matrix q = zeros(m, n);
  for (std::int64_t j = 0; j < n; ++j) {
    q(j, j) = 1.0;
  }
  for (std::int64_t j = n - 1; j >= 0; --j) {
    const std::vector<double>& vj = reflectors[static_cast<std::size_t>(j)];
    if (vj.empty()) {
      continue;
    }
    for (std::int64_t k = 0; k < n; ++k) {
      double dot = 0.0;
      for (std::int64_t i = j; i < m; ++i) {
        dot += vj[static_cast<std::size_t>(i)] * q(i, k);
      }
      for (std::int64_t i = j; i < m; ++i) {
        q(i, k) -= 2.0 * dot * vj[static_cast<std::size_t>(i)];
      }
    }
  }

  Qr out{std::move(q), zeros(n, n)};
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = i; k < n; ++k) {
      out.r(i, k) = r(i, k);
    }
  }
  // Q·R is unchanged by flipping column i of Q together with row i of R.
  for (std::int64_t i = 0; i < n; ++i) {
    if (out.r(i, i) < 0.0) {
      for (std::int64_t k = 0; k < n; ++k) {
        out.r(i, k) = -out.r(i, k);
      }
      for (std::int64_t k = 0; k < m; ++k) {
        out.q(k, i) = -out.q(k, i);
      }
    }
  }
  return out;
}

std::vector<double> singular_values(const Matrix& a) {
  // Work on the orientation with fewer columns: the rotations orthogonalise columns.
  Matrix w = a.rows >= a.cols ? a : transpose(a);
  const std::int64_t m = w.rows;
  const std::int64_t n = w.cols;

  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (std::int64_t p = 0; p < n; ++p) {
      for (std::int64_t q = p + 1; q < n; ++q) {
        double alpha = 0.0;
        double beta = 0.0;
        double gamma = 0.0;
        for (std::int64_t i = 0; i < m; ++i) {
          alpha += w(i, p) * w(i, p);
          beta += w(i, q) * w(i, q);
          gamma += w(i, p) * w(i, q);
        }
        if (std::abs(gamma) <= 1e-16 * std::sqrt(alpha * beta) || gamma == 0.0) {
          continue;
        }
        rotated = true;
        // The same 2 × 2 symmetric Schur rotation as Jacobi, applied to [α γ; γ β] = WᵀW.
        const double t = jacobi_tangent(alpha, beta, gamma);
        const double c = 1.0 / std::sqrt(1.0 + t * t);
        const double s = t * c;
        for (std::int64_t i = 0; i < m; ++i) {
          const double wp = w(i, p);
          const double wq = w(i, q);
          w(i, p) = c * wp - s * wq;
          w(i, q) = s * wp + c * wq;
        }
      }
    }
    if (!rotated) {
      break;
    }
  }

  std::vector<double> sigma(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) {
    double sum = 0.0;
    for (std::int64_t i = 0; i < m; ++i) {
      sum += w(i, j) * w(i, j);
    }
    sigma[static_cast<std::size_t>(j)] = std::sqrt(sum);
  }
  std::sort(sigma.begin(), sigma.end(), std::greater<>());
  return sigma;
}

Matrix inverse_root(const Matrix& a, double root, double epsilon) {
  const Eigh e = eigh_jacobi(a);
  const std::int64_t n = a.rows;
  Matrix scaled = e.vectors;  // Q·diag(d), column j scaled by d_j
  for (std::int64_t j = 0; j < n; ++j) {
    const double lambda = std::max(e.values[static_cast<std::size_t>(j)], 0.0);
    const double d = std::pow(lambda + epsilon, -1.0 / root);
    for (std::int64_t i = 0; i < n; ++i) {
      scaled(i, j) *= d;
    }
  }
  return matmul(scaled, transpose(e.vectors));
}

}  // namespace canzona::optim::reference
