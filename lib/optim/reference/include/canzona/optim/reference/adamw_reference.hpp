// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// AdamW on a flat vector in double precision: the optimizer of every non-matrix parameter
// (paper-spec §5.6; Loshchilov & Hutter 2019, torch.optim.AdamW / TE FusedAdam semantics).
#pragma once

#include <canzona/optim/options.hpp>
#include <canzona/optim/reference/dense.hpp>

#include <cstdint>
#include <vector>

namespace canzona::optim::reference {

/// AdamW with options `o`; t = 1, 2, … counting the steps taken including this one:
///
///     m ← β1·m + (1 − β1)·g;   v ← β2·v + (1 − β2)·g²        (m = v = 0 initially)
///     m̂ = m / (1 − β1^t);      v̂ = v / (1 − β2^t)
///     p ← p·(1 − lr·wd) − lr·m̂ / (sqrt(v̂) + eps)           (decoupled weight decay first)
class AdamWReference {
 public:
  explicit AdamWReference(AdamWOptions options);

  /// One step on a flat parameter; the first call fixes the length, later ones must match.
  void step(std::vector<double>& param, const std::vector<double>& grad);
  /// The same on a matrix, treated as its row-major flat vector.
  void step(Matrix& param, const Matrix& grad);

  const std::vector<double>& exp_avg() const { return exp_avg_; }
  const std::vector<double>& exp_avg_sq() const { return exp_avg_sq_; }
  std::int64_t steps() const { return steps_; }
  const AdamWOptions& options() const { return options_; }
  void set_lr(double lr) { options_.lr = lr; }

 private:
  AdamWOptions options_;
  std::vector<double> exp_avg_;
  std::vector<double> exp_avg_sq_;
  std::int64_t steps_ = 0;
};

}  // namespace canzona::optim::reference
