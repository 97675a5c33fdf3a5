// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Exact FLOP and byte counts of OUR optimizer implementations (not the paper's approximations):
// what the planner balances and what the projector divides by measured kernel rates.
#pragma once

#include <canzona/optim/options.hpp>

#include <cstdint>

namespace canzona::optim {

/// FLOP conventions, one number per backend operation, shared by the model and the tests that
/// count what the implementation actually calls:
///  - gemm: 2·m·n·k per batch item (the beta·C term is not counted);
///  - eigh (syevd with eigenvectors): 9·n³ per matrix (Golub & Van Loan, symmetric QR with
///    accumulated eigenvectors, the conventional figure for any dense symmetric eigensolver);
///  - orthonormalize (geqrf + orgqr): 4·m·n² − 4·n³/3 (2mn² − 2n³/3 each), rounded to the
///    nearest integer so that every count is an integer and totals add up exactly;
///  - element-wise kernels: one FLOP per arithmetic operator of the formula in backend.hpp
///    (+ − × ÷ sqrt pow; products of host scalars folded), per element of the output, with the
///    per-element constants below; per-item or per-column scalar work (a norm's sqrt, a
///    column's pow) is not counted;
///  - data movement (copy, convert, fill, permute, reverse, argsort): 0.
namespace flops {
inline constexpr double kCountNonfinite = 1;   ///< isfinite test
inline constexpr double kSumSquares = 2;       ///< x², +
inline constexpr double kColumnDots = 2;       ///< per element of the n×n inputs: ×, +
inline constexpr double kMuonMomentum = 3;     ///< μ·buf + (1−μ)·g
inline constexpr double kMuonNesterov = 3;     ///< extra: (1−μ)·g + μ·buf
inline constexpr double kNormalize = 1;        ///< x / norm
inline constexpr double kNormalizeRms = 1;     ///< x / (eps + rms)
inline constexpr double kAxpby = 3;            ///< α·x + β·y
inline constexpr double kEma = 3;              ///< β·m + (1−β)·g
inline constexpr double kEmaSquare = 4;        ///< β·v + (1−β)·g·g
inline constexpr double kAdamDirection = 5;    ///< (m/b1) / (sqrt(v/b2) + eps)
inline constexpr double kDivideSqrtEps = 3;    ///< x / (sqrt(v) + eps)
inline constexpr double kApplyUpdate = 3;      ///< p·(1−lr·wd) − (lr·s)·u
inline constexpr double kAdamWStep = 15;       ///< ema 3 + ema_square 4 + decay 1 + direction 5 + 2
inline constexpr double kAddDiagonal = 1;      ///< per diagonal element
inline constexpr double kScaleColumnsPow = 1;  ///< per element: q · d_j

/// 2·m·n·k.
double gemm(std::int64_t m, std::int64_t n, std::int64_t k);
/// 9·n³.
double eigh(std::int64_t n);
/// round(4·m·n² − 4·n³/3).
double orthonormalize(std::int64_t m, std::int64_t n);
}  // namespace flops

/// Cost of stepping one rows×cols matrix with our implementation.
struct StepCost {
  double hot_flops = 0;          ///< a step without refresh (Muon, AdamW: every step)
  double refresh_flops = 0;      ///< added on refresh steps (Shampoo roots, SOAP eigenbases)
  int refresh_interval = 1;      ///< a refresh every this many steps (1 with no refresh)
  double first_step_flops = 0;   ///< step 1 (Shampoo: hot + refresh; SOAP: the update-free init)
  std::int64_t state_bytes = 0;  ///< backend bytes of the persistent state
  std::int64_t workspace_bytes = 0;  ///< batch-of-one workspace, solver workspaces excluded
                                     ///< (backend-specific: see MatrixOptimizer::workspace_bytes)
  /// Average FLOPs per step in steady state: hot + refresh / interval.
  double mean_flops() const {
    return hot_flops + refresh_flops / static_cast<double>(refresh_interval);
  }
};

/// Exact cost of our implementation of `spec` on a rows×cols matrix (the executor's local
/// shape). Pure host arithmetic; ConfigError for a non-positive shape.
StepCost step_cost(const OptimizerSpec& spec, std::int64_t rows, std::int64_t cols);

}  // namespace canzona::optim
