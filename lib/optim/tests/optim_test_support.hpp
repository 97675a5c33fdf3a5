// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shared by the cpu and gpu optimizer tests: test inputs, backend arrays, the double reference
// behind one call signature, and a trajectory runner that compares every step with it.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/optim/reference/adamw_reference.hpp>
#include <canzona/optim/reference/dense.hpp>
#include <canzona/optim/reference/muon_reference.hpp>
#include <canzona/optim/reference/shampoo_reference.hpp>
#include <canzona/optim/reference/soap_reference.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace canzona::optim::test {

// bf16 Newton–Schulz: stored operands and iterates keep 8 significant bits, unit roundoff
// u = 2^-9 ≈ 2e-3. Each of the 5 iterations rounds about four quantities (X, S, b·S + c·S·S,
// the new X) once, ≈ 20 roundings of ≈ u each: √20·2e-3 ≈ 1e-2 relative on U if they were
// independent and not amplified, but the NS map has slope up to a ≈ 3.4 on small singular
// values and ≈ 1 (|f'(1)| = 0.72, |f'(0.7)| = 1.14) in the band it oscillates in, so errors of
// early iterations survive to the end. Measured 2–4.5e-2 per step (Frobenius, over 5 shapes ×
// 21 steps × many seeds); budget 1e-1 on the per-step update and on the parameter trajectory
// (which averages the per-step errors; measured ≤ 3.5e-2).
constexpr double kMuonBf16UpdateBudget = 1e-1;
constexpr double kMuonBf16ParamBudget = 1e-1;
// One home for these budgets: the cpu and the cuda tests (measured on an H200: 3.6-4.4e-2 per
// step, inside the range above) check the same arithmetic.

// Conditioning: for a non-square G the statistic of its long side is rank deficient until
// enough steps have been accumulated (L = Σ G·Gᵀ of a 16×6 G has rank 6 of 16 after step 1).
// The root of a zero eigenvalue is ε^-1/4, but an fp32 eigensolver returns those eigenvalues
// as round-off ≈ 1e-7·‖L‖, so with ε = 1e-12 the null-space factor is (1e-7)^-1/4 ≈ 56 in fp32
// against 1000 in double, and the next step's new gradient directions land in that null space:
// the update is then dominated by round-off in ANY fp32 implementation. The trajectories
// therefore use ε = 1e-3 (≫ 1e-7·‖L‖ with ‖G‖ ≈ 1, see test_gradient, so the null-space factor is
// ε^-1/4 to ~1e-5 in both), and the square shape, whose statistics are full rank from step 1, also
// runs with the default ε = 1e-12.
// The cuda tests compare two fp32 implementations, where the same round-off argument holds
// (an H200 measured 0.25-0.76 relative error with ε = 1e-12 on every rank-deficient shape and
// passed the full-rank square one).
constexpr double kShampooTestEpsilon = 1e-3;

using reference::Matrix;

/// Shapes every optimizer is checked on: tall, wide, square, tiny and a row vector.
struct NamedShape {
  const char* label;
  Shape shape;
};
inline const std::vector<NamedShape>& test_shapes() {
  static const std::vector<NamedShape> shapes = {
      {"tall", {16, 6}}, {"wide", {6, 16}}, {"square", {8, 8}}, {"tiny", {3, 5}}, {"row", {1, 7}}};
  return shapes;
}

/// `m` rounded to fp32 and widened back, so the implementation and the reference see the very
/// same numbers.
inline Matrix fp32_exact(const Matrix& m) {
  const std::vector<float> f = reference::to_floats(m);
  return reference::from_floats(m.rows, m.cols, f);
}

/// A well-conditioned gradient: (N + D)/‖D‖ with N i.i.d. N(0, 1) and D diagonal with
/// D_ii = 3r·(i + 1), r = sqrt(rows) + sqrt(cols) ≈ ‖N‖₂. By Weyl's inequality the singular
/// values stay within ‖N‖ ≈ r of 3r·(i + 1): they are separated by ≥ r (relative gaps
/// ≥ 1/(3·min side)), far from zero, and deterministic in spacing, so the eigenvectors of the
/// statistics (Shampoo roots, SOAP bases) are well determined in fp32 (error ≈ u/gap ≈ 1e-6).
/// Dividing by ‖D‖ keeps ‖G‖ ≈ 1, so round-off in the statistics (≈ 1e-7·‖L‖) stays far
/// below Shampoo's test ε. Rounded to fp32 so both sides see identical numbers.
inline Matrix test_gradient(Shape s, std::uint64_t seed) {
  Matrix g = reference::random_normal(s.rows, s.cols, seed);
  const std::int64_t d = std::min(s.rows, s.cols);
  const double r = std::sqrt(static_cast<double>(s.rows)) + std::sqrt(static_cast<double>(s.cols));
  for (std::int64_t i = 0; i < d; ++i) g(i, i) += 3.0 * r * static_cast<double>(i + 1);
  return fp32_exact(reference::scale(g, 1.0 / (3.0 * r * static_cast<double>(d))));
}

/// An fp32 array in backend memory.
class DeviceArray {
 public:
  DeviceArray(backend::Backend& be, std::int64_t n)
      : be_(&be), n_(n), buf_(be.allocate(static_cast<std::size_t>(n) * sizeof(float))) {}
  float* data() const { return buf_.as<float>(); }
  void upload(const Matrix& m) {
    host_ = reference::to_floats(m);
    be_->upload(data(), host_.data(), host_.size() * sizeof(float));
  }
  std::vector<float> download_floats() const {
    std::vector<float> out(static_cast<std::size_t>(n_));
    be_->download(out.data(), data(), out.size() * sizeof(float));
    return out;
  }
  Matrix download(std::int64_t rows, std::int64_t cols) const {
    const std::vector<float> f = download_floats();
    return reference::from_floats(rows, cols, f);
  }

 private:
  backend::Backend* be_;
  std::int64_t n_;
  backend::Buffer buf_;
  std::vector<float> host_;  // kept alive until the next upload: upload is stream-ordered
};

/// The double reference of `spec` behind one call: step(param, grad).
inline std::function<void(Matrix&, const Matrix&)> make_reference(const OptimizerSpec& spec) {
  switch (spec.kind) {
    case OptimizerKind::kMuon: {
      auto r = std::make_shared<reference::MuonReference>(spec.muon);
      return [r](Matrix& p, const Matrix& g) { r->step(p, g); };
    }
    case OptimizerKind::kShampoo: {
      auto r = std::make_shared<reference::ShampooReference>(spec.shampoo);
      return [r](Matrix& p, const Matrix& g) { r->step(p, g); };
    }
    case OptimizerKind::kSoap: {
      auto r = std::make_shared<reference::SoapReference>(spec.soap);
      return [r](Matrix& p, const Matrix& g) { r->step(p, g); };
    }
    case OptimizerKind::kAdamW: {
      auto r = std::make_shared<reference::AdamWReference>(spec.adamw);
      return [r](Matrix& p, const Matrix& g) { r->step(p, g); };
    }
  }
  return {};
}

inline double spec_lr(const OptimizerSpec& s) {
  switch (s.kind) {
    case OptimizerKind::kMuon:
      return s.muon.lr;
    case OptimizerKind::kShampoo:
      return s.shampoo.lr;
    case OptimizerKind::kSoap:
      return s.soap.lr;
    case OptimizerKind::kAdamW:
      return s.adamw.lr;
  }
  return 0;
}
inline double spec_wd(const OptimizerSpec& s) {
  switch (s.kind) {
    case OptimizerKind::kMuon:
      return s.muon.weight_decay;
    case OptimizerKind::kShampoo:
      return s.shampoo.weight_decay;
    case OptimizerKind::kSoap:
      return s.soap.weight_decay;
    case OptimizerKind::kAdamW:
      return s.adamw.weight_decay;
  }
  return 0;
}

/// The update u of one step recovered in double from the parameter before and after:
/// decay before (Muon, Shampoo, AdamW): p' = p·(1 − lr·wd) − lr·u;
/// decay after (SOAP):                  p' = (p − lr·u)·(1 − lr·wd).
inline Matrix recover_update(const OptimizerSpec& s, const Matrix& before, const Matrix& after) {
  const double lr = spec_lr(s);
  const double decay = 1.0 - lr * spec_wd(s);
  if (s.kind == OptimizerKind::kSoap) {
    return reference::scale(reference::subtract(before, reference::scale(after, 1.0 / decay)),
                            1.0 / lr);
  }
  return reference::scale(reference::subtract(reference::scale(before, decay), after), 1.0 / lr);
}

/// ‖a − b‖_F / ‖b‖_F (0 when both are zero).
inline double relative(const Matrix& a, const Matrix& b) {
  const double den = reference::frobenius_norm(b);
  const double num = reference::frobenius_distance(a, b);
  if (den == 0.0) return num == 0.0 ? 0.0 : num / 1e-300;
  return num / den;
}

struct TrajectoryResult {
  double max_update_rel = 0;  ///< worst step: ‖u − u_ref‖_F / ‖u_ref‖_F
  double max_param_rel = 0;  ///< worst step: ‖p − p_ref‖_F / ‖p_ref − p0‖_F (error / movement)
  std::size_t nonfinite = 0;
};

/// Steps `spec` on `be` and the double reference side by side for `steps` steps with fresh
/// gradients, from the same random fp32 parameter, and records the worst relative errors.
inline TrajectoryResult run_trajectory(backend::Backend& be, const OptimizerSpec& spec, Shape shape,
                                       int steps, std::uint64_t seed) {
  auto opt = make_matrix_optimizer(spec, be);
  auto state = opt->make_state(shape.rows, shape.cols);
  auto ref = make_reference(spec);
  const Matrix p0 = fp32_exact(reference::scale(
      reference::random_normal(shape.rows, shape.cols, seed ^ 0x9e3779b97f4a7c15ull), 0.1));
  Matrix p_ref = p0;
  Matrix p_prev = p0;
  DeviceArray p(be, shape.rows * shape.cols);
  DeviceArray g(be, shape.rows * shape.cols);
  p.upload(p0);
  TrajectoryResult out;
  for (int t = 1; t <= steps; ++t) {
    const Matrix grad = test_gradient(shape, seed + static_cast<std::uint64_t>(t));
    g.upload(grad);
    opt->step(*state, p.data(), g.data());
    const Matrix p_now = p.download(shape.rows, shape.cols);
    const Matrix p_ref_prev = p_ref;
    ref(p_ref, grad);
    const Matrix u = recover_update(spec, p_prev, p_now);
    const Matrix u_ref = recover_update(spec, p_ref_prev, p_ref);
    out.max_update_rel = std::max(out.max_update_rel, relative(u, u_ref));
    const double moved = reference::frobenius_distance(p_ref, p0);
    if (moved > 0) {
      out.max_param_rel =
          std::max(out.max_param_rel, reference::frobenius_distance(p_now, p_ref) / moved);
    } else {
      // SOAP's first call leaves the parameter untouched: ours must too, exactly.
      out.max_param_rel =
          std::max(out.max_param_rel, reference::frobenius_distance(p_now, p0) > 0 ? 1.0 : 0.0);
    }
    p_prev = p_now;
  }
  out.nonfinite = opt->nonfinite_gradients();
  return out;
}

/// A spec with test hyper-parameters: learning rates large enough that the update stands well
/// above the fp32 rounding of the parameter (|p| ≈ 0.1), refresh intervals short enough that
/// 20 steps cross several refreshes, and SOAP's eps at 1e-3: SOAP divides the rotated momentum
/// by sqrt(V̂) + eps entry by entry, so the fp32 eigenbasis' absolute error in an entry is
/// amplified by 1 / (sqrt(V̂_ij) + eps). Rotated gradient entries fall arbitrarily close to zero
/// with a probability proportional to their size, so with the default eps = 1e-8 the error has a
/// heavy tail (per-step errors of 1e-3–4e-3 on ~1 % of seeds) that no fixed budget bounds;
/// eps = 1e-3, a tenth of the typical off-diagonal entry here, caps the amplification at 1e3
/// while the entries stay in Adam's sqrt(V̂)-dominated regime.
inline OptimizerSpec test_spec(OptimizerKind kind) {
  OptimizerSpec s;
  s.kind = kind;
  s.muon.lr = 0.02;
  s.shampoo.lr = 0.01;
  s.shampoo.refresh_interval = 3;
  s.soap.lr = 0.01;
  s.soap.precondition_frequency = 4;
  s.soap.eps = 1e-3;
  s.adamw.lr = 0.01;
  return s;
}

inline std::string describe(const OptimizerSpec& s, const NamedShape& shape) {
  return fmt::format("{} on {} [{}, {}]", to_string(s.kind), shape.label, shape.shape.rows,
                     shape.shape.cols);
}

}  // namespace canzona::optim::test
