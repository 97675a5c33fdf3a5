// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cost model mirrors the kernel sequence of muon.cpp, shampoo.cpp, soap.cpp and adamw.cpp
// call by call (the tests count the calls to prove it); workspace bytes come from the very
// layout functions the implementations carve their workspace with.
#include "canzona/optim/cost_model.hpp"

#include "detail.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace canzona::optim {

namespace flops {
double gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
}
double eigh(std::int64_t n) {
  const auto x = static_cast<double>(n);
  return 9.0 * x * x * x;
}
double orthonormalize(std::int64_t m, std::int64_t n) {
  const auto a = static_cast<double>(m);
  const auto b = static_cast<double>(n);
  // Rounded to an integer like every other count, so per-step totals add up exactly.
  return std::round(4.0 * a * b * b - 4.0 * b * b * b / 3.0);
}
}  // namespace flops

namespace detail {

std::size_t workspace_bytes_without_solvers(const OptimizerSpec& spec, Shape shape,
                                            std::int64_t batch) {
  Carver c;
  switch (spec.kind) {
    case OptimizerKind::kMuon:
      carve_muon(c, spec.muon, shape, batch);
      break;
    case OptimizerKind::kShampoo:
      carve_shampoo(c, spec.shampoo, shape, batch, SolverBytes{});
      break;
    case OptimizerKind::kSoap:
      carve_soap(c, spec.soap, shape, batch, SolverBytes{});
      break;
    case OptimizerKind::kAdamW:
      break;
  }
  return c.size();
}

}  // namespace detail

namespace {

/// The three rotations / preconditionings of an r×c matrix by r×r and c×c factors, one GEMM per
/// preconditioned side.
double two_sided(std::int64_t r, std::int64_t c, bool left, bool right) {
  return (left ? flops::gemm(r, c, r) : 0.0) + (right ? flops::gemm(r, c, c) : 0.0);
}

StepCost muon_cost(const MuonOptions& o, std::int64_t r, std::int64_t c) {
  const double n = static_cast<double>(r) * static_cast<double>(c);
  const std::int64_t d = std::min(r, c);
  const std::int64_t big = std::max(r, c);
  StepCost cost;
  const double elementwise = flops::kCountNonfinite + flops::kMuonMomentum +
                             (o.nesterov ? flops::kMuonNesterov : 0.0) + flops::kSumSquares +
                             flops::kNormalize + flops::kApplyUpdate;
  // Per iteration: Gram d×d×big, S·S d×d×d, update r×c×d.
  const double per_iteration = flops::gemm(d, d, big) + flops::gemm(d, d, d) + flops::gemm(r, c, d);
  cost.hot_flops = n * elementwise + o.ns_steps * per_iteration;
  cost.first_step_flops = cost.hot_flops;
  cost.state_bytes = r * c * 4;
  return cost;
}

StepCost shampoo_cost(const ShampooOptions& o, std::int64_t r, std::int64_t c) {
  const double n = static_cast<double>(r) * static_cast<double>(c);
  const bool left = r <= o.max_precond_dim;
  const bool right = c <= o.max_precond_dim;
  StepCost cost;
  // Two apply_update passes: the grafting ratio folded into the direction, then the update.
  cost.hot_flops = n * (flops::kCountNonfinite + flops::kEma + flops::kEmaSquare +
                        flops::kAdamDirection + 2 * flops::kSumSquares + 2 * flops::kApplyUpdate) +
                   (left ? flops::gemm(r, r, c) : 0.0) + (right ? flops::gemm(c, c, r) : 0.0) +
                   two_sided(r, c, left, right);
  for (const auto& [on, d] : {std::pair{left, r}, std::pair{right, c}}) {
    if (!on) continue;
    cost.refresh_flops +=
        flops::eigh(d) + static_cast<double>(d) * static_cast<double>(d) * flops::kScaleColumnsPow +
        flops::gemm(d, d, d);
  }
  cost.refresh_interval = o.refresh_interval;
  // Step 1 refreshes unless roots come at multiples of an interval above 1.
  const bool first_refreshes = !o.refresh_at_multiples || o.refresh_interval == 1;
  cost.first_step_flops = cost.hot_flops + (first_refreshes ? cost.refresh_flops : 0.0);
  cost.state_bytes =
      static_cast<std::int64_t>(detail::two_sided_state_bytes(Shape{r, c}, o.max_precond_dim));
  return cost;
}

StepCost soap_cost(const SoapOptions& o, std::int64_t r, std::int64_t c) {
  const double n = static_cast<double>(r) * static_cast<double>(c);
  const bool left = r <= o.max_precond_dim;
  const bool right = c <= o.max_precond_dim;
  StepCost cost;
  cost.hot_flops = n * (flops::kCountNonfinite + flops::kEma + flops::kEmaSquare +
                        flops::kDivideSqrtEps + flops::kApplyUpdate +
                        (o.normalize_grads ? flops::kSumSquares + flops::kNormalizeRms : 0.0)) +
                   3 * two_sided(r, c, left, right) +  // rotate G, rotate M, rotate back
                   (left ? flops::gemm(r, r, c) : 0.0) + (right ? flops::gemm(c, c, r) : 0.0);
  cost.first_step_flops = n * flops::kCountNonfinite;
  for (const auto& [on, d, other] : {std::tuple{left, r, c}, std::tuple{right, c, r}}) {
    if (!on) continue;
    const double dd = static_cast<double>(d) * static_cast<double>(d);
    cost.refresh_flops +=
        flops::gemm(d, d, d) + dd * flops::kColumnDots + flops::orthonormalize(d, d);
    cost.first_step_flops +=
        flops::gemm(d, d, other) + static_cast<double>(d) * flops::kAddDiagonal + flops::eigh(d);
  }
  cost.refresh_interval = o.precondition_frequency;
  cost.state_bytes =
      static_cast<std::int64_t>(detail::two_sided_state_bytes(Shape{r, c}, o.max_precond_dim));
  return cost;
}

StepCost adamw_cost(std::int64_t r, std::int64_t c) {
  StepCost cost;
  cost.hot_flops = static_cast<double>(r) * static_cast<double>(c) *
                   (flops::kCountNonfinite + flops::kAdamWStep);
  cost.first_step_flops = cost.hot_flops;
  cost.state_bytes = 8 * r * c;
  return cost;
}

}  // namespace

StepCost step_cost(const OptimizerSpec& spec, std::int64_t rows, std::int64_t cols) {
  validate(spec);
  detail::check_shape(rows, cols, "step_cost");
  StepCost cost;
  switch (spec.kind) {
    case OptimizerKind::kMuon:
      cost = muon_cost(spec.muon, rows, cols);
      break;
    case OptimizerKind::kShampoo:
      cost = shampoo_cost(spec.shampoo, rows, cols);
      break;
    case OptimizerKind::kSoap:
      cost = soap_cost(spec.soap, rows, cols);
      break;
    case OptimizerKind::kAdamW:
      cost = adamw_cost(rows, cols);
      break;
  }
  cost.workspace_bytes = static_cast<std::int64_t>(
      detail::workspace_bytes_without_solvers(spec, Shape{rows, cols}, 1));
  return cost;
}

}  // namespace canzona::optim
