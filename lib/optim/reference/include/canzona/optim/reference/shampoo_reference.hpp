// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shampoo with Adam grafting in double precision: the "our Shampoo" of paper-spec §5.5 in the
// formulation of ShampooOptions (facebookresearch/optimizers DistributedShampoo).
#pragma once

#include <canzona/optim/options.hpp>
#include <canzona/optim/reference/dense.hpp>

#include <cstdint>

namespace canzona::optim::reference {

/// Shampoo for one m × n matrix (Gupta et al. 2018; Shi et al. 2023, arXiv 2309.06497;
/// Anil et al. 2020, arXiv 2002.09018, for grafting). With options `o`, t = 1, 2, … counting
/// the steps taken including this one:
///
///     G̃ ← β1·G̃ + (1 − β1)·G;                M̂ = G̃ / (1 − β1^t)
///     L ← β2·L + (1 − β2)·G·Gᵀ    (m × m, only if m ≤ max_precond_dim)
///     R ← β2·R + (1 − β2)·Gᵀ·G    (n × n, only if n ≤ max_precond_dim)
///     if (t − 1) % refresh_interval == 0:        (steps 1, 1 + k, 1 + 2k, …; with
///                                                 refresh_at_multiples t % k == 0: k, 2k, …)
///         L⁻¼ = Q·diag((max(λ, 0) + ε)^(−1/4))·Qᵀ  from c·L = Q·diag(λ)·Qᵀ, likewise R⁻¼,
///         c = 1/(1 − β2^t) with bias_correct_statistics, else 1; computed from the
///         statistics after this step's update; kept until the next refresh
///     D_s = L⁻¼·M̂·R⁻¼            (a side not preconditioned contributes the identity)
///     A ← β2g·A + (1 − β2g)·G⊙G;   D_g = M̂ ⊘ (sqrt(A / (1 − β2g^t)) + εg)
///     D   = D_s · ‖D_g‖_F / max(‖D_s‖_F, 1e-30), or D_g while t < start_preconditioning_step
///     p   ← p·(1 − lr·wd) − lr·D   (decoupled weight decay before the update)
///
/// All state starts at zero; the −1/4 exponent is used on each side also when the other side
/// is not preconditioned. Roots come from eigh_jacobi (linalg.hpp).
class ShampooReference {
 public:
  explicit ShampooReference(ShampooOptions options);

  /// One optimizer step; the first call fixes the shape, later calls with another throw.
  void step(Matrix& param, const Matrix& grad);

  /// Whether the rows (L) / columns (R) are preconditioned: dim ≤ max_precond_dim.
  bool has_left() const { return has_left_; }
  bool has_right() const { return has_right_; }
  /// L (m × m) and R (n × n); empty for a side that is not preconditioned or before step 1.
  const Matrix& left_stats() const { return left_; }
  const Matrix& right_stats() const { return right_; }
  /// L⁻¼ and R⁻¼ as of the last refresh; empty for a side that is not preconditioned.
  const Matrix& left_root() const { return left_root_; }
  const Matrix& right_root() const { return right_root_; }
  /// G̃ (not bias-corrected) and the grafting second moment A.
  const Matrix& momentum() const { return momentum_; }
  const Matrix& graft_second_moment() const { return graft_; }
  /// D (before lr and weight decay) of the last step.
  const Matrix& last_direction() const { return last_direction_; }
  /// t: number of completed steps.
  std::int64_t steps() const { return steps_; }
  const ShampooOptions& options() const { return options_; }
  void set_lr(double lr) { options_.lr = lr; }

 private:
  void init(std::int64_t rows, std::int64_t cols);

  ShampooOptions options_;
  bool has_left_ = false;
  bool has_right_ = false;
  Matrix left_;
  Matrix right_;
  Matrix left_root_;
  Matrix right_root_;
  Matrix momentum_;
  Matrix graft_;
  Matrix last_direction_;
  std::int64_t steps_ = 0;
};

}  // namespace canzona::optim::reference
