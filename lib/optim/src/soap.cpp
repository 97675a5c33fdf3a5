// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SOAP over backend ops (paper-spec §5.3): Adam in the eigenbasis of the Shampoo statistics,
// bases refreshed by one QR power iteration every precondition_frequency steps. README.md.
#include "detail.hpp"

#include <algorithm>
#include <cmath>

namespace canzona::optim::detail {

namespace {

// Slots as make_two_sided_state lays them out.
enum SoapSlot { kM = 0, kV, kGG0, kGG1, kQ0, kQ1 };

using backend::Trans;

class Soap final : public MatrixOptimizer {
 public:
  Soap(const OptimizerSpec& spec, backend::Backend& be) : MatrixOptimizer(spec, be) {}

  OptimizerKind kind() const noexcept override { return OptimizerKind::kSoap; }

  std::unique_ptr<MatrixState> make_state(std::int64_t rows, std::int64_t cols) override {
    check_shape(rows, cols, "soap make_state");
    auto state = make_two_sided_state(backend_, OptimizerKind::kSoap, Shape{rows, cols},
                                      spec_.soap.max_precond_dim,
                                      {"exp_avg", "exp_avg_sq", {"GG0", "GG1"}, {"Q0", "Q1"}});
    ensure_capacity(Shape{rows, cols}, 1);
    return state;
  }

  std::size_t state_bytes(std::int64_t rows, std::int64_t cols) const override {
    check_shape(rows, cols, "soap state_bytes");
    return two_sided_state_bytes(Shape{rows, cols}, spec_.soap.max_precond_dim);
  }

  std::size_t workspace_bytes(std::int64_t rows, std::int64_t cols,
                              std::int64_t batch) const override {
    check_shape(rows, cols, "soap workspace_bytes");
    Carver c;
    carve_soap(c, spec_.soap, Shape{rows, cols}, batch, solver_bytes(rows, cols, batch));
    return c.size();
  }

 protected:
  void run_group(std::span<const StepTask> tasks, void* workspace) override {
    if (tasks.front().state->steps() == 0) {
      initialize(tasks, workspace);
    } else {
      update(tasks, workspace);
    }
  }

 public:
  // Update number t = step − 1: the first call only initialises (no update, no decay).
  DirectionRule direction_rule(Shape /*shape*/, int step) const override {
    const SoapOptions& o = spec_.soap;
    const int t = step - 1;
    const double scale =
        o.correct_bias ? std::sqrt(1.0 - std::pow(o.beta2, t)) / (1.0 - std::pow(o.beta1, t)) : 1.0;
    return DirectionRule{step > 1, static_cast<float>(o.lr), static_cast<float>(o.weight_decay),
                         static_cast<float>(scale), backend::DecayOrder::kAfterUpdate};
  }

 private:
  ItemLists lists_;

  SolverBytes solver_bytes(std::int64_t rows, std::int64_t cols, std::int64_t batch) const {
    const SoapOptions& o = spec_.soap;
    SolverBytes s;
    for (const std::int64_t d : {rows, cols}) {
      if (d > o.max_precond_dim) continue;
      s.eigh = std::max(s.eigh, backend_.eigh_workspace_bytes(d, batch));
      s.orthonormalize = std::max(s.orthonormalize, backend_.orthonormalize_workspace_bytes(d, d));
      s.argsort = std::max(s.argsort, backend_.argsort_workspace_bytes(d, batch));
    }
    return s;
  }

  static auto slot(std::span<const StepTask> tasks, int s) {
    return [tasks, s](std::size_t i) { return buffer_state(tasks[i]).at(s); };
  }

  /// GG_i ← β_s·GG_i + (1−β_s)·G_i·G_iᵀ (G_0 = G, G_1 = Gᵀ) for the batch; returns the batch
  /// of updated statistics (gathered for more than one matrix).
  float* update_statistics(std::span<const StepTask> tasks, const float* g, int side, float keep,
                           const SoapWorkspace& ws) {
    const Shape shape = tasks.front().state->shape();
    const auto count = static_cast<std::int64_t>(tasks.size());
    const std::int64_t d = side == 0 ? shape.rows : shape.cols;
    const std::int64_t other = side == 0 ? shape.cols : shape.rows;
    const int gg_slot = side == 0 ? kGG0 : kGG1;
    float* gg =
        gather(backend_, lists_, tasks, slot(tasks, gg_slot), side == 0 ? ws.gg0 : ws.gg1, d * d);
    const auto add = static_cast<float>(1.0 - soap_shampoo_beta(spec_.soap));
    gemm_f32(backend_, count, side == 0 ? Trans::kNo : Trans::kYes,
             side == 0 ? Trans::kYes : Trans::kNo, d, d, other, add, g, g, keep, gg);
    scatter(backend_, lists_, tasks, slot(tasks, gg_slot), gg, d * d);
    return gg;
  }

  /// First call: statistics from zero, bases = eigenvectors of GG + 1e-8·I in descending
  /// eigenvalue order; no parameter update (the original SOAP skips its first step).
  void initialize(std::span<const StepTask> tasks, void* workspace) {
    const SoapOptions& o = spec_.soap;
    const Shape shape = tasks.front().state->shape();
    const auto count = static_cast<std::int64_t>(tasks.size());
    Carver carver(workspace);
    const SoapWorkspace ws =
        carve_soap(carver, o, shape, count, solver_bytes(shape.rows, shape.cols, count));
    const float* g = gather(
        backend_, lists_, tasks, [&tasks](std::size_t i) { return tasks[i].grad; }, ws.g,
        shape.rows * shape.cols);
    for (int side = 0; side < 2; ++side) {
      const std::int64_t d = side == 0 ? shape.rows : shape.cols;
      if (d > o.max_precond_dim) continue;
      // beta = 0: the zero-initialised statistics contribute nothing (lerp from 0).
      const float* gg = update_statistics(tasks, g, side, 0.0f, ws);
      const int q_slot = side == 0 ? kQ0 : kQ1;
      float* q = count == 1 ? buffer_state(tasks.front()).at(q_slot) : (side == 0 ? ws.q0 : ws.q1);
      backend_.copy(q, gg, static_cast<std::size_t>(count * d * d) * sizeof(float));
      backend_.add_diagonal(q, d, count, 1e-8f);
      backend_.eigh(d, count, q, ws.lam, ws.solver);
      backend_.reverse_columns(q, d, count);
      scatter(backend_, lists_, tasks, slot(tasks, q_slot), q, d * d);
    }
    // No update on this call; a split step gets a zero direction its rule does not apply.
    for (const StepTask& task : tasks) {
      if (task.direction != nullptr) {
        backend_.fill_zero(task.direction,
                           static_cast<std::size_t>(shape.rows * shape.cols) * sizeof(float));
      }
    }
  }

  /// Rotates a batch of m×n matrices into (forward) or out of (back) the eigenbases:
  /// forward: Q0ᵀ·X·Q1, back: Q0·X·Q1ᵀ; a side without a basis is left as is.
  const float* rotate(const float* x, const float* q0, const float* q1, bool back, float* tmp,
                      float* out, Shape shape, std::int64_t count) {
    const std::int64_t rows = shape.rows;
    const std::int64_t cols = shape.cols;
    const Trans t0 = back ? Trans::kNo : Trans::kYes;
    const Trans t1 = back ? Trans::kYes : Trans::kNo;
    if (q0 != nullptr && q1 != nullptr) {
      gemm_f32(backend_, count, t0, Trans::kNo, rows, cols, rows, 1.0f, q0, x, 0.0f, tmp);
      gemm_f32(backend_, count, Trans::kNo, t1, rows, cols, cols, 1.0f, tmp, q1, 0.0f, out);
      return out;
    }
    if (q0 != nullptr) {
      gemm_f32(backend_, count, t0, Trans::kNo, rows, cols, rows, 1.0f, q0, x, 0.0f, out);
      return out;
    }
    if (q1 != nullptr) {
      gemm_f32(backend_, count, Trans::kNo, t1, rows, cols, cols, 1.0f, x, q1, 0.0f, out);
      return out;
    }
    return x;
  }

  void update(std::span<const StepTask> tasks, void* workspace) {
    const SoapOptions& o = spec_.soap;
    const Shape shape = tasks.front().state->shape();
    const std::int64_t rows = shape.rows;
    const std::int64_t cols = shape.cols;
    const std::int64_t n = rows * cols;
    const auto count = static_cast<std::int64_t>(tasks.size());
    const bool left = rows <= o.max_precond_dim;
    const bool right = cols <= o.max_precond_dim;
    // The first call only initialised, so this is update number t = steps() (1-based), the t
    // of the bias corrections and of the refresh test t % f == 0.
    const int t = tasks.front().state->steps();
    Carver carver(workspace);
    const SoapWorkspace ws = carve_soap(carver, o, shape, count, solver_bytes(rows, cols, count));
    auto& be = backend_;

    const float* g = gather(
        be, lists_, tasks, [&tasks](std::size_t i) { return tasks[i].grad; }, ws.g, n);
    float* q0 = left ? gather(be, lists_, tasks, slot(tasks, kQ0), ws.q0, rows * rows) : nullptr;
    float* q1 = right ? gather(be, lists_, tasks, slot(tasks, kQ1), ws.q1, cols * cols) : nullptr;

    // Ĝ = Q0ᵀ·G·Q1; M ← β1·M + (1−β1)·G (original basis); V ← β2·V + (1−β2)·Ĝ².
    const float* ghat = rotate(g, q0, q1, false, ws.tmp, ws.ghat, shape, count);
    const std::size_t k = tasks.size();
    be.ema(list_of(lists_.a, k, slot(tasks, kM)),
           list_of(lists_.x, k, [&tasks](std::size_t i) { return tasks[i].grad; }), n,
           static_cast<float>(o.beta1));
    be.ema_square(list_of(lists_.b, k, slot(tasks, kV)), items(ghat, count, n), n,
                  static_cast<float>(o.beta2));

    // N = Q0·((Q0ᵀ·M·Q1) / (sqrt(V) + eps))·Q1ᵀ. The rotated M lands in `ph` even without any
    // basis (then a plain copy), because the division must not overwrite the state M.
    const float* m = gather(be, lists_, tasks, slot(tasks, kM), ws.m, n);
    const float* mhat = rotate(m, q0, q1, false, ws.tmp, ws.ph, shape, count);
    if (mhat != ws.ph) be.copy(ws.ph, mhat, static_cast<std::size_t>(count * n) * sizeof(float));
    be.divide_sqrt_eps(items(static_cast<const float*>(ws.ph), count, n),
                       list_of(lists_.y, k, slot(tasks, kV)), items(ws.ph, count, n), n,
                       static_cast<float>(o.eps));
    // Without any basis the rotation is the identity and the update is ph itself.
    float* nb = left || right ? ws.nb : ws.ph;
    rotate(ws.ph, q0, q1, true, ws.tmp, nb, shape, count);
    if (o.normalize_grads) {
      be.sum_squares(nb, ElementType::kFloat32, n, count, ws.sumsq);
      be.normalize_rms(items(nb, count, n), n, ws.sumsq, 1e-30f);
    }

    // p ← (p − lr·s·N)·(1 − lr·wd), s = sqrt(1−β2^t)/(1−β1^t) with bias correction
    // (direction_rule).
    finish(tasks, nb);

    // Statistics after the update (as the original SOAP), then the refresh on t % f == 0.
    const auto keep = static_cast<float>(soap_shampoo_beta(o));
    const bool refresh = t % o.precondition_frequency == 0;
    for (int side = 0; side < 2; ++side) {
      if (!(side == 0 ? left : right)) continue;
      const float* gg = update_statistics(tasks, g, side, keep, ws);
      if (refresh) refresh_basis(tasks, side, gg, side == 0 ? q0 : q1, ws);
    }
  }

  /// One QR power iteration: λ = diag(Qᵀ·GG·Q), π = argsort(λ) descending, V permuted along
  /// the side by π, Q ← orth(GG·Q[:, π]). GG·Q[:, π] is taken as (GG·Q)[:, π], the product
  /// already computed for λ, which saves a GEMM and is the same numbers column by column.
  /// Every step but the QR is one batched call for the whole group.
  void refresh_basis(std::span<const StepTask> tasks, int side, const float* gg, float* q,
                     const SoapWorkspace& ws) {
    const Shape shape = tasks.front().state->shape();
    const auto count = static_cast<std::int64_t>(tasks.size());
    const std::int64_t d = side == 0 ? shape.rows : shape.cols;
    const std::int64_t n = shape.rows * shape.cols;
    const std::size_t k = tasks.size();
    auto& be = backend_;
    gemm_f32(be, count, Trans::kNo, Trans::kNo, d, d, d, 1.0f, gg, q, 0.0f, ws.tmpd);
    be.column_dots(q, ws.tmpd, d, count, ws.lam);
    be.argsort_descending(ws.lam, d, count, ws.perm, ws.solver);
    // V_i (its own allocation) permuted into the workspace, then copied back in one call.
    const auto v_in = list_of(lists_.x, k, slot(tasks, kV));
    if (side == 0) {
      be.permute_rows(v_in, shape.rows, shape.cols, ws.perm, items(ws.vperm, count, n));
    } else {
      be.permute_columns(v_in, shape.rows, shape.cols, ws.perm, items(ws.vperm, count, n));
    }
    const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
    be.copy(list_of(lists_.dst, k, slot(tasks, kV)),
            backend::Items<const void>(ws.vperm, count, bytes), bytes);
    be.permute_columns(items(static_cast<const float*>(ws.tmpd), count, d * d), d, d, ws.perm,
                       items(q, count, d * d));
    // One QR per matrix: cuSOLVER has geqrf and orgqr for one matrix per call only. cuBLAS's
    // geqrfBatched has no orgqr to pair with, and forming Q from its reflectors another way
    // (GEMMs, another sign rule) would change the basis SOAP continues from.
    for (std::int64_t i = 0; i < count; ++i) be.orthonormalize(d, d, q + i * d * d, ws.solver);
    const int q_slot = side == 0 ? kQ0 : kQ1;
    scatter(be, lists_, tasks, slot(tasks, q_slot), q, d * d);
  }
};

}  // namespace

SoapWorkspace carve_soap(Carver& carver, const SoapOptions& o, Shape shape, std::int64_t batch,
                         const SolverBytes& solver) {
  const std::int64_t rows = shape.rows;
  const std::int64_t cols = shape.cols;
  const std::int64_t n = rows * cols;
  const bool left = rows <= o.max_precond_dim;
  const bool right = cols <= o.max_precond_dim;
  const bool many = batch > 1;  // a single matrix works on its state arrays in place
  const std::int64_t dmax = std::max(left ? rows : 0, right ? cols : 0);
  SoapWorkspace ws;
  if (many) ws.g = carver.floats(batch * n);
  if (many && left) ws.q0 = carver.floats(batch * rows * rows);
  if (many && right) ws.q1 = carver.floats(batch * cols * cols);
  if (many && left) ws.gg0 = carver.floats(batch * rows * rows);
  if (many && right) ws.gg1 = carver.floats(batch * cols * cols);
  if (many) ws.m = carver.floats(batch * n);
  if (left || right) ws.ghat = carver.floats(batch * n);
  ws.ph = carver.floats(batch * n);
  if (left && right) ws.tmp = carver.floats(batch * n);
  if (left || right) ws.nb = carver.floats(batch * n);
  ws.sumsq = carver.floats(batch);
  ws.tmpd = carver.floats(batch * dmax * dmax);
  ws.lam = carver.floats(batch * dmax);
  ws.perm = static_cast<int*>(carver.take(static_cast<std::size_t>(batch * dmax) * sizeof(int)));
  // The permuted exp_avg_sq of the refresh, batch × n: ghat's region, free by then (its last
  // reader, ema_square, is earlier on the backend's stream).
  ws.vperm = ws.ghat;
  // eigh (first call), argsort and orthonormalize (refresh) run one after another on the
  // backend's stream, so they share one region.
  ws.solver = carver.take(std::max({solver.eigh, solver.orthonormalize, solver.argsort}));
  return ws;
}

std::unique_ptr<MatrixOptimizer> make_soap(const OptimizerSpec& spec, backend::Backend& be) {
  return std::make_unique<Soap>(spec, be);
}

}  // namespace canzona::optim::detail
