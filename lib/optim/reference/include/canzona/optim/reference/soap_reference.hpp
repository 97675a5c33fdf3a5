// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SOAP (Adam in Shampoo's eigenbasis) in double precision, exactly as paper-spec §5.3
// (Vyas et al. 2024, arXiv 2409.11321; Megatron-Canzona soap.py, FSDP-port refresh rule).
#pragma once

#include <canzona/optim/options.hpp>
#include <canzona/optim/reference/dense.hpp>

#include <cstdint>
#include <vector>

namespace canzona::optim::reference {

/// SOAP for one m × n matrix with options `o`. Side 0 are the rows (G_0 = G, GG_0 is m × m),
/// side 1 the columns (G_1 = Gᵀ, GG_1 is n × n); a side with dim > max_precond_dim has no GG
/// and no Q and is left unrotated (Q_i = I below). β_s = o.shampoo_beta, or o.beta2 if negative.
///
/// First call (initialisation, t stays 0, the parameter is NOT touched, M = V = 0):
///
///     GG_i = (1 − β_s)·G_i·G_iᵀ
///     Q_i  = eigenvectors of (GG_i + 1e-8·I), columns in DESCENDING eigenvalue order
///
/// Every later call:
///
///     t ← t + 1
///     Ĝ  = Q_0ᵀ·G·Q_1
///     M  ← β1·M + (1 − β1)·G                     (original basis)
///     V  ← β2·V + (1 − β2)·Ĝ⊙Ĝ                   (rotated basis)
///     N  = Q_0·((Q_0ᵀ·M·Q_1) ⊘ (sqrt(V) + eps))·Q_1ᵀ
///     if normalize_grads: N ← N / (1e-30 + rms(N))
///     if correct_bias:    N ← N·sqrt(1 − β2^t) / (1 − β1^t)
///     GG_i ← β_s·GG_i + (1 − β_s)·G_i·G_iᵀ
///     if t % precondition_frequency == 0, for each side i with a Q_i:
///         λ = diag(Q_iᵀ·GG_i·Q_i);  π = argsort(λ) descending (ties: lower index first)
///         V ← V.index_select(i, π) (V'[k] = V[π[k]] along axis i);  Q_i ← Q_i[:, π]
///         Q_i ← Q factor of QR(GG_i·Q_i) with diag(R) ≥ 0   (one step of power iteration)
///     p ← p − lr·N;  p ← p − lr·wd·p               (decoupled weight decay after the update)
///
/// Eigenvectors come from eigh_jacobi and QR from qr_householder (linalg.hpp). N does not
/// depend on the signs of Q's columns; it does depend on the basis chosen inside a degenerate
/// eigenspace (e.g. the null space of GG for a non-square G), which no two solvers share.
class SoapReference {
 public:
  explicit SoapReference(SoapOptions options);

  /// One call as above; the first call fixes the shape, later calls with another throw.
  void step(Matrix& param, const Matrix& grad);

  /// Whether the first (initialising) call has happened.
  bool initialized() const { return initialized_; }
  /// t: number of calls that updated the parameter (the initialising call does not count).
  std::int64_t steps() const { return steps_; }
  /// Whether side i (0: rows, 1: columns) is rotated.
  bool has_q(int side) const;
  /// GG_i and Q_i (empty for a side that is not rotated).
  const Matrix& gg(int side) const;
  const Matrix& q(int side) const;
  /// M (exp_avg, original basis) and V (exp_avg_sq, rotated basis).
  const Matrix& exp_avg() const { return exp_avg_; }
  const Matrix& exp_avg_sq() const { return exp_avg_sq_; }
  /// N of the last updating call, after normalisation and bias correction (before lr).
  const Matrix& last_direction() const { return last_direction_; }
  const SoapOptions& options() const { return options_; }
  void set_lr(double lr) { options_.lr = lr; }

  /// β_s as used: shampoo_beta, or beta2 when shampoo_beta is negative.
  double shampoo_beta() const;

 private:
  void init(const Matrix& grad);
  Matrix project(const Matrix& x) const;       // Q_0ᵀ·x·Q_1
  Matrix project_back(const Matrix& x) const;  // Q_0·x·Q_1ᵀ
  void refresh(int side);

  SoapOptions options_;
  bool initialized_ = false;
  std::int64_t steps_ = 0;
  bool has_q_[2] = {false, false};
  Matrix gg_[2];
  Matrix q_[2];
  Matrix exp_avg_;
  Matrix exp_avg_sq_;
  Matrix last_direction_;
};

/// Eigenvectors of symmetric `a` as columns in descending eigenvalue order (the reversed
/// ascending order of eigh_jacobi, as torch.flip after torch.linalg.eigh).
Matrix eigenvectors_descending(const Matrix& a);

/// argsort of `values` in descending order; equal values keep ascending index order.
std::vector<std::int64_t> argsort_descending(const std::vector<double>& values);

}  // namespace canzona::optim::reference
