// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Muon over backend ops: momentum (lerp, Nesterov), Frobenius normalisation, Newton–Schulz in
// ns_precision with ping-pong iterates, scaled decoupled-decay update. Formulas: README.md.
#include "detail.hpp"

#include <canzona/optim/coefficients.hpp>

#include <algorithm>
#include <cmath>
#include <utility>

namespace canzona::optim::detail {

namespace {

enum MuonSlot { kMomentum = 0 };

double muon_scale(const MuonOptions& o, Shape s) {
  const auto a = static_cast<double>(s.rows);
  const auto b = static_cast<double>(s.cols);
  return o.scale == MuonScale::kRmsMatch ? 0.2 * std::sqrt(std::max(a, b))
                                         : std::sqrt(std::max(1.0, a / b));
}

class Muon final : public MatrixOptimizer {
 public:
  Muon(const OptimizerSpec& spec, backend::Backend& be) : MatrixOptimizer(spec, be) {}

  OptimizerKind kind() const noexcept override { return OptimizerKind::kMuon; }

  std::unique_ptr<MatrixState> make_state(std::int64_t rows, std::int64_t cols) override {
    check_shape(rows, cols, "muon make_state");
    auto state = std::make_unique<BufferState>(OptimizerKind::kMuon, Shape{rows, cols});
    state->add(backend_, kMomentum, "momentum", rows, cols);
    ensure_capacity(Shape{rows, cols}, 1);
    return state;
  }

  std::size_t state_bytes(std::int64_t rows, std::int64_t cols) const override {
    check_shape(rows, cols, "muon state_bytes");
    return static_cast<std::size_t>(rows * cols) * sizeof(float);
  }

  std::size_t workspace_bytes(std::int64_t rows, std::int64_t cols,
                              std::int64_t batch) const override {
    check_shape(rows, cols, "muon workspace_bytes");
    Carver c;
    carve_muon(c, spec_.muon, Shape{rows, cols}, batch);
    return c.size();
  }

 protected:
  void run_group(std::span<const StepTask> tasks, void* workspace) override {
    const MuonOptions& o = spec_.muon;
    const Shape shape = tasks.front().state->shape();
    const std::int64_t rows = shape.rows;
    const std::int64_t cols = shape.cols;
    const std::int64_t n = rows * cols;
    const auto count = static_cast<std::int64_t>(tasks.size());
    const ElementType t = ns_type(o);
    Carver carver(workspace);
    const MuonWorkspace ws = carve_muon(carver, o, shape, count);

    // Momentum writes the NS input straight into the contiguous batch (in the NS type), so
    // the batch needs no extra gather copy; one batched operation for the whole group.
    const std::size_t k = tasks.size();
    const std::size_t item_bytes = static_cast<std::size_t>(n) * element_size(t);
    backend_.muon_momentum(
        list_of(lists_.a, k,
                [&tasks](std::size_t i) { return buffer_state(tasks[i]).at(kMomentum); }),
        list_of(lists_.x, k, [&tasks](std::size_t i) { return tasks[i].grad; }),
        backend::Items<void>(ws.x0, count, item_bytes), t, n, static_cast<float>(o.momentum),
        o.nesterov);
    backend_.sum_squares(ws.x0, t, n, count, ws.sumsq);
    backend_.normalize(ws.x0, t, n, count, ws.sumsq, static_cast<float>(o.ns_eps));

    // Orientation without transposes: a tall X (rows > cols) iterates on the cols×cols Gram
    // XᵀX and multiplies from the right; otherwise on X·Xᵀ from the left. Both equal the
    // transpose-NS-transpose of the spec exactly (same products, same sums).
    const bool tall = rows > cols;
    const std::int64_t d = std::min(rows, cols);
    const std::int64_t big = std::max(rows, cols);
    void* x = ws.x0;
    void* y = ws.x1;
    for (int it = 0; it < o.ns_steps; ++it) {
      const auto [a, b, c] = ns_tuple(o.coefficients, it);

      backend::GemmArgs g;  // S = XᵀX (tall) or X·Xᵀ
      g.trans_a = tall ? backend::Trans::kYes : backend::Trans::kNo;
      g.trans_b = tall ? backend::Trans::kNo : backend::Trans::kYes;
      g.m = d;
      g.n = d;
      g.k = big;
      g.alpha = 1.0f;
      g.a = x;
      g.lda = cols;
      g.b = x;
      g.ldb = cols;
      g.beta = 0.0f;
      g.c = ws.s;
      g.ldc = d;
      g.ab_type = t;
      g.c_type = t;
      g.batch = count;
      g.stride_a = n;
      g.stride_b = n;
      g.stride_c = d * d;
      backend_.gemm(g);

      // Bm = b·S + c·S·S: S is copied into Bm and accumulated by the GEMM's beta, so b·S and
      // c·S·S meet in fp32 and are rounded once.
      backend_.copy(ws.bm, ws.s, static_cast<std::size_t>(count * d * d) * element_size(t));
      backend::GemmArgs h;
      h.m = d;
      h.n = d;
      h.k = d;
      h.alpha = static_cast<float>(c);
      h.a = ws.s;
      h.lda = d;
      h.b = ws.s;
      h.ldb = d;
      h.beta = static_cast<float>(b);
      h.c = ws.bm;
      h.ldc = d;
      h.ab_type = t;
      h.c_type = t;
      h.batch = count;
      h.stride_a = d * d;
      h.stride_b = d * d;
      h.stride_c = d * d;
      backend_.gemm(h);

      // Y = a·X + X·Bm (tall) or a·X + Bm·X: X is copied into the pong buffer and accumulated
      // by beta = a (C may not alias A or B).
      backend_.copy(y, x, static_cast<std::size_t>(count * n) * element_size(t));
      backend::GemmArgs u;
      u.m = rows;
      u.n = cols;
      u.k = tall ? cols : rows;
      u.alpha = 1.0f;
      u.a = tall ? x : ws.bm;
      u.lda = tall ? cols : d;
      u.b = tall ? ws.bm : x;
      u.ldb = tall ? d : cols;
      u.beta = static_cast<float>(a);
      u.c = y;
      u.ldc = cols;
      u.ab_type = t;
      u.c_type = t;
      u.batch = count;
      u.stride_a = tall ? n : d * d;
      u.stride_b = tall ? d * d : n;
      u.stride_c = n;
      backend_.gemm(u);
      std::swap(x, y);
    }

    // The direction is the NS result itself; the rule scales it (direction_rule).
    finish(tasks, x);
  }

 public:
  DirectionRule direction_rule(Shape shape, int /*step*/) const override {
    const MuonOptions& o = spec_.muon;
    return DirectionRule{true, static_cast<float>(o.lr), static_cast<float>(o.weight_decay),
                         static_cast<float>(muon_scale(o, shape)),
                         backend::DecayOrder::kBeforeUpdate};
  }

 private:
  ItemLists lists_;
};

}  // namespace

MuonWorkspace carve_muon(Carver& carver, const MuonOptions& o, Shape shape, std::int64_t batch) {
  const std::size_t es = backend::element_size(ns_type(o));
  const auto n = static_cast<std::size_t>(shape.rows * shape.cols);
  const auto d = static_cast<std::size_t>(std::min(shape.rows, shape.cols));
  const auto bt = static_cast<std::size_t>(batch);
  MuonWorkspace ws;
  ws.x0 = carver.take(bt * n * es);
  if (o.ns_steps > 0) {
    ws.x1 = carver.take(bt * n * es);
    ws.s = carver.take(bt * d * d * es);
    ws.bm = carver.take(bt * d * d * es);
  }
  ws.sumsq = carver.floats(batch);
  return ws;
}

std::unique_ptr<MatrixOptimizer> make_muon(const OptimizerSpec& spec, backend::Backend& be) {
  return std::make_unique<Muon>(spec, be);
}

}  // namespace canzona::optim::detail
