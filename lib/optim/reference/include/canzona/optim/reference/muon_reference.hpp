// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Muon in double precision: momentum, Newton–Schulz orthogonalisation, shape scaling and
// decoupled weight decay, exactly as paper-spec §5.2 (Megatron-Canzona muon.py).
#pragma once

#include <canzona/optim/options.hpp>
#include <canzona/optim/reference/dense.hpp>

#include <cstdint>

namespace canzona::optim::reference {

/// Newton–Schulz orthogonalisation of an A × B matrix G (paper-spec §5.2):
///
///     X = G / max(‖G‖_F, eps);  if A > B: X ← Xᵀ          (so X is short-and-wide, S small)
///     for i in 0 .. steps−1:  (a, b, c) = ns_tuple(set, i)  (last tuple repeats)
///         S = X·Xᵀ;  Bm = b·S + c·S·S;  X = a·X + Bm·X
///     if A > B: X ← Xᵀ
///
/// On singular values this is σ ↦ a·σ + b·σ³ + c·σ⁵ per step, σ normalised to ≤ 1.
/// Always double precision: MuonOptions::ns_precision has no meaning for the reference.
/// Throws canzona::Error for steps < 0.
Matrix newton_schulz(const Matrix& g, int steps, NsCoefficients set, double eps);

/// The factor Muon multiplies NS(m) by, for an A × B matrix (or fragment):
/// kRmsMatch: 0.2·sqrt(max(A, B));  kAspectRatio: sqrt(max(1, A/B)).
double muon_scale(MuonScale scale, std::int64_t rows, std::int64_t cols);

/// Muon for one matrix, per paper-spec §5.2 with options `o` (μ = o.momentum):
///
///     buf ← μ·buf + (1 − μ)·g                      (buf starts at 0)
///     m   = nesterov ? (1 − μ)·g + μ·buf : buf
///     U   = NS(m; o.ns_steps, o.coefficients, o.ns_eps) · muon_scale(o.scale, A, B)
///     p   ← p·(1 − lr·wd) − lr·U                   (decoupled weight decay before the update)
class MuonReference {
 public:
  explicit MuonReference(MuonOptions options);

  /// One optimizer step on `param` (A × B) with gradient `grad` of the same shape. The first
  /// call fixes the shape; later calls with another shape throw canzona::Error.
  void step(Matrix& param, const Matrix& grad);

  /// The momentum buffer `buf` (empty before the first step).
  const Matrix& momentum() const { return momentum_; }
  /// The scaled update U of the last step (empty before the first step).
  const Matrix& last_update() const { return last_update_; }
  /// Number of completed steps.
  std::int64_t steps() const { return steps_; }
  const MuonOptions& options() const { return options_; }
  /// Changes the learning rate for the following steps (schedules).
  void set_lr(double lr) { options_.lr = lr; }

 private:
  MuonOptions options_;
  Matrix momentum_;
  Matrix last_update_;
  std::int64_t steps_ = 0;
};

}  // namespace canzona::optim::reference
