// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shampoo with Adam grafting over backend ops: statistics by GEMM (alpha = 1−β2, beta = β2),
// inverse fourth roots by eigh + scale_columns_pow + GEMM on refresh steps, grafting by the
// norm ratio inside apply_update (no host round trip). Formulas: README.md.
#include "detail.hpp"

#include <algorithm>
#include <cmath>

namespace canzona::optim::detail {

namespace {

// Slots as make_two_sided_state lays them out.
enum ShampooSlot { kM = 0, kV, kL, kR, kPL, kPR };

using backend::Trans;

class Shampoo final : public MatrixOptimizer {
 public:
  Shampoo(const OptimizerSpec& spec, backend::Backend& be) : MatrixOptimizer(spec, be) {}

  OptimizerKind kind() const noexcept override { return OptimizerKind::kShampoo; }

  std::unique_ptr<MatrixState> make_state(std::int64_t rows, std::int64_t cols) override {
    check_shape(rows, cols, "shampoo make_state");
    auto state = make_two_sided_state(
        backend_, OptimizerKind::kShampoo, Shape{rows, cols}, spec_.shampoo.max_precond_dim,
        {"exp_avg", "graft_exp_avg_sq", {"L", "R"}, {"L_inv_root", "R_inv_root"}});
    ensure_capacity(Shape{rows, cols}, 1);
    return state;
  }

  std::size_t state_bytes(std::int64_t rows, std::int64_t cols) const override {
    check_shape(rows, cols, "shampoo state_bytes");
    return two_sided_state_bytes(Shape{rows, cols}, spec_.shampoo.max_precond_dim);
  }

  std::size_t workspace_bytes(std::int64_t rows, std::int64_t cols,
                              std::int64_t batch) const override {
    check_shape(rows, cols, "shampoo workspace_bytes");
    Carver c;
    carve_shampoo(c, spec_.shampoo, Shape{rows, cols}, batch, solver_bytes(rows, cols, batch));
    return c.size();
  }

 protected:
  void run_group(std::span<const StepTask> tasks, void* workspace) override {
    const ShampooOptions& o = spec_.shampoo;
    const Shape shape = tasks.front().state->shape();
    const std::int64_t rows = shape.rows;
    const std::int64_t cols = shape.cols;
    const std::int64_t n = rows * cols;
    const auto count = static_cast<std::int64_t>(tasks.size());
    const bool left = rows <= o.max_precond_dim;
    const bool right = cols <= o.max_precond_dim;
    const int t = tasks.front().state->steps() + 1;  // 1-based step being taken
    const bool refresh =
        o.refresh_at_multiples ? t % o.refresh_interval == 0 : (t - 1) % o.refresh_interval == 0;
    // DistributedShampoo's bias correction of the statistics, applied to their eigenvalues.
    const auto statistics_scale =
        o.bias_correct_statistics ? static_cast<float>(1.0 / (1.0 - std::pow(o.beta2, t))) : 1.0f;
    Carver carver(workspace);
    const ShampooWorkspace ws =
        carve_shampoo(carver, o, shape, count, solver_bytes(rows, cols, count));
    auto& be = backend_;
    const auto slot = [&](int s) {
      return [&tasks, s](std::size_t i) { return buffer_state(tasks[i]).at(s); };
    };

    // First moment, grafting second moment and the Adam direction: one batched operation each
    // for the whole group (the state arrays of the matrices are separate allocations).
    const auto bias1 = static_cast<float>(1.0 - std::pow(o.beta1, t));
    const auto bias2 = static_cast<float>(1.0 - std::pow(o.graft_beta2, t));
    const std::size_t k = tasks.size();
    const auto grads = list_of(lists_.x, k, [&tasks](std::size_t i) { return tasks[i].grad; });
    be.ema(list_of(lists_.a, k, slot(kM)), grads, n, static_cast<float>(o.beta1));
    be.ema_square(list_of(lists_.b, k, slot(kV)), grads, n, static_cast<float>(o.graft_beta2));
    be.adam_direction(list_of(lists_.y, k, slot(kM)), list_of(lists_.z, k, slot(kV)),
                      items(ws.a, count, n), n, bias1, bias2, static_cast<float>(o.graft_epsilon));

    // Statistics from the raw gradient: L ← β2·L + (1−β2)·G·Gᵀ, R ← β2·R + (1−β2)·Gᵀ·G.
    const auto keep = static_cast<float>(o.beta2);
    const auto add = static_cast<float>(1.0 - o.beta2);
    const float* pl = nullptr;
    const float* pr = nullptr;
    if (left || right) {
      const float* g = gather(
          be, lists_, tasks, [&tasks](std::size_t i) { return tasks[i].grad; }, ws.g, n);
      if (left) {
        float* l = gather(be, lists_, tasks, slot(kL), ws.l, rows * rows);
        gemm_f32(be, count, Trans::kNo, Trans::kYes, rows, rows, cols, add, g, g, keep, l);
        scatter(be, lists_, tasks, slot(kL), l, rows * rows);
        pl = refresh ? inverse_root(tasks, l, rows, kPL, ws.pl, statistics_scale, ws)
                     : gather(be, lists_, tasks, slot(kPL), ws.pl, rows * rows);
      }
      if (right) {
        float* r = gather(be, lists_, tasks, slot(kR), ws.r, cols * cols);
        gemm_f32(be, count, Trans::kYes, Trans::kNo, cols, cols, rows, add, g, g, keep, r);
        scatter(be, lists_, tasks, slot(kR), r, cols * cols);
        pr = refresh ? inverse_root(tasks, r, cols, kPR, ws.pr, statistics_scale, ws)
                     : gather(be, lists_, tasks, slot(kPR), ws.pr, cols * cols);
      }
    }

    // Before start_preconditioning_step the direction is the grafting (Adam) direction alone.
    if (t < o.start_preconditioning_step) {
      finish(tasks, ws.a);
      return;
    }

    // Shampoo direction D = L^{-1/4}·M·R^{-1/4} from the raw first moment: its bias correction
    // 1/(1−β1^t) cancels in the grafting ratio ‖A‖/‖D‖, so it is not applied.
    const float* m = gather(be, lists_, tasks, slot(kM), ws.m, n);
    const float* d = m;
    if (left && right) {
      gemm_f32(be, count, Trans::kNo, Trans::kNo, rows, cols, rows, 1.0f, pl, m, 0.0f, ws.tmp);
      gemm_f32(be, count, Trans::kNo, Trans::kNo, rows, cols, cols, 1.0f, ws.tmp, pr, 0.0f, ws.d);
      d = ws.d;
    } else if (left) {
      gemm_f32(be, count, Trans::kNo, Trans::kNo, rows, cols, rows, 1.0f, pl, m, 0.0f, ws.d);
      d = ws.d;
    } else if (right) {
      gemm_f32(be, count, Trans::kNo, Trans::kNo, rows, cols, cols, 1.0f, m, pr, 0.0f, ws.d);
      d = ws.d;
    }

    // Grafting: u = D·‖A‖_F/‖D‖_F with the ratio from device sums (no host round trip). It is
    // folded into the direction by apply_update on a zeroed array (p = 0, lr = −1, no decay:
    // p ← 0 + ratio·D), so the direction is complete on its own and a TP shard of it applies
    // exactly like the whole. A is dead once its norm is taken, so its array holds u.
    be.sum_squares(ws.a, ElementType::kFloat32, n, count, ws.sumsq);
    be.sum_squares(d, ElementType::kFloat32, n, count, ws.sumsq + count);
    be.fill_zero(ws.a, static_cast<std::size_t>(count * n) * sizeof(float));
    be.apply_update(ws.a, d, ElementType::kFloat32, n, count, -1.0f, 0.0f, 1.0f,
                    backend::DecayOrder::kBeforeUpdate, ws.sumsq, ws.sumsq + count);
    finish(tasks, ws.a);
  }

 public:
  DirectionRule direction_rule(Shape /*shape*/, int /*step*/) const override {
    const ShampooOptions& o = spec_.shampoo;
    return DirectionRule{true, static_cast<float>(o.lr), static_cast<float>(o.weight_decay), 1.0f,
                         backend::DecayOrder::kBeforeUpdate};
  }

 private:
  ItemLists lists_;

  SolverBytes solver_bytes(std::int64_t rows, std::int64_t cols, std::int64_t batch) const {
    const ShampooOptions& o = spec_.shampoo;
    SolverBytes s;
    if (rows <= o.max_precond_dim)
      s.eigh = std::max(s.eigh, backend_.eigh_workspace_bytes(rows, batch));
    if (cols <= o.max_precond_dim)
      s.eigh = std::max(s.eigh, backend_.eigh_workspace_bytes(cols, batch));
    return s;
  }

  /// P = Q·diag((max(c·λ,0)+ε)^{-1/4})·Qᵀ for the batch of statistics `stats` (d×d each),
  /// c = `scale` (the statistics' bias correction, 1 without); written to the states' `slot`
  /// (through `gathered` for a batch). Returns the batch of roots.
  const float* inverse_root(std::span<const StepTask> tasks, const float* stats, std::int64_t d,
                            int slot, float* gathered, float scale, const ShampooWorkspace& ws) {
    const auto count = static_cast<std::int64_t>(tasks.size());
    auto& be = backend_;
    be.copy(ws.q, stats, static_cast<std::size_t>(count * d * d) * sizeof(float));
    be.eigh(d, count, ws.q, ws.w, ws.solver);
    if (scale != 1.0f) be.axpby(ws.w, ws.w, ElementType::kFloat32, count * d, scale, 0.0f);
    be.scale_columns_pow(ws.q, ws.w, ws.scaled, d, count, static_cast<float>(spec_.shampoo.epsilon),
                         -0.25f);
    float* out = count == 1 ? buffer_state(tasks.front()).at(slot) : gathered;
    gemm_f32(be, count, Trans::kNo, Trans::kYes, d, d, d, 1.0f, ws.scaled, ws.q, 0.0f, out);
    scatter(
        be, lists_, tasks,
        [&tasks, slot](std::size_t i) { return buffer_state(tasks[i]).at(slot); }, out, d * d);
    return out;
  }
};

}  // namespace

ShampooWorkspace carve_shampoo(Carver& carver, const ShampooOptions& o, Shape shape,
                               std::int64_t batch, const SolverBytes& solver) {
  const std::int64_t rows = shape.rows;
  const std::int64_t cols = shape.cols;
  const std::int64_t n = rows * cols;
  const bool left = rows <= o.max_precond_dim;
  const bool right = cols <= o.max_precond_dim;
  const bool many = batch > 1;  // a single matrix works on its state arrays in place
  const std::int64_t dmax = std::max(left ? rows : 0, right ? cols : 0);
  ShampooWorkspace ws;
  if (many && (left || right)) ws.g = carver.floats(batch * n);
  if (many && left) ws.l = carver.floats(batch * rows * rows);
  if (many && right) ws.r = carver.floats(batch * cols * cols);
  if (many && left) ws.pl = carver.floats(batch * rows * rows);
  if (many && right) ws.pr = carver.floats(batch * cols * cols);
  if (many) ws.m = carver.floats(batch * n);
  if (left && right) ws.tmp = carver.floats(batch * n);
  if (left || right) ws.d = carver.floats(batch * n);
  ws.a = carver.floats(batch * n);
  ws.sumsq = carver.floats(2 * batch);
  ws.q = carver.floats(batch * dmax * dmax);
  ws.w = carver.floats(batch * dmax);
  ws.scaled = carver.floats(batch * dmax * dmax);
  ws.solver = carver.take(solver.eigh);
  return ws;
}

std::unique_ptr<MatrixOptimizer> make_shampoo(const OptimizerSpec& spec, backend::Backend& be) {
  return std::make_unique<Shampoo>(spec, be);
}

}  // namespace canzona::optim::detail
