// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cost model against the implementation: a Backend decorator counts the FLOPs of every
// call (by the conventions of cost_model.hpp) and the bytes every make_state allocates.
#include "optim_test_support.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/core/error.hpp>
#include <canzona/optim/cost_model.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace canzona::optim {
namespace {

namespace be = canzona::backend;

/// Forwards every operation to `inner` and adds up FLOPs and allocated bytes. Buffers come from
/// the inner backend (it frees them), so release() here is never called.
class CountingBackend final : public be::Backend {
 public:
  explicit CountingBackend(be::Backend& inner) : inner_(inner) {}

  double flops = 0;
  std::size_t allocated = 0;

  std::string_view name() const override { return inner_.name(); }
  be::Buffer do_allocate(std::size_t bytes) override {
    allocated += bytes;
    return inner_.allocate(bytes);
  }
  void do_upload(void* dst, const void* host, std::size_t bytes) override {
    inner_.upload(dst, host, bytes);
  }
  void do_download(void* host, const void* src, std::size_t bytes) override {
    inner_.download(host, src, bytes);
  }
  void do_synchronize() override { inner_.synchronize(); }
  void do_fill_zero(void* dst, std::size_t bytes) override { inner_.fill_zero(dst, bytes); }
  void do_copy(be::Items<void> dst, be::Items<const void> src, std::size_t bytes) override {
    inner_.copy(dst, src, bytes);
  }
  void do_convert(void* dst, be::ElementType dt, const void* src, be::ElementType st,
                  std::int64_t n) override {
    inner_.convert(dst, dt, src, st, n);
  }
  void do_gemm(const be::GemmArgs& a) override {
    flops += static_cast<double>(a.batch) * flops::gemm(a.m, a.n, a.k);
    inner_.gemm(a);
  }
  void do_eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* ws) override {
    flops += static_cast<double>(count) * flops::eigh(n);
    inner_.eigh(n, count, a, w, ws);
  }
  std::size_t do_eigh_workspace_bytes(std::int64_t n, std::int64_t count) override {
    return inner_.eigh_workspace_bytes(n, count);
  }
  void do_orthonormalize(std::int64_t m, std::int64_t n, float* a, void* ws) override {
    flops += flops::orthonormalize(m, n);
    inner_.orthonormalize(m, n, a, ws);
  }
  std::size_t do_orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) override {
    return inner_.orthonormalize_workspace_bytes(m, n);
  }
  void do_sum_squares(const void* x, be::ElementType t, std::int64_t n, std::int64_t count,
                      float* out) override {
    add(flops::kSumSquares, n * count);
    inner_.sum_squares(x, t, n, count, out);
  }
  void do_count_nonfinite(be::Items<const float> x, std::int64_t n, int* counter) override {
    add(flops::kCountNonfinite, n * x.count());
    inner_.count_nonfinite(x, n, counter);
  }
  void do_column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count,
                      float* out) override {
    add(flops::kColumnDots, n * n * count);
    inner_.column_dots(a, b, n, count, out);
  }
  void do_muon_momentum(be::Items<float> buf, be::Items<const float> g, be::Items<void> out,
                        be::ElementType t, std::int64_t n, float mu, bool nesterov) override {
    add(flops::kMuonMomentum + (nesterov ? flops::kMuonNesterov : 0.0), n * buf.count());
    inner_.muon_momentum(buf, g, out, t, n, mu, nesterov);
  }
  void do_normalize(void* x, be::ElementType t, std::int64_t n, std::int64_t count,
                    const float* sumsq, float eps) override {
    add(flops::kNormalize, n * count);
    inner_.normalize(x, t, n, count, sumsq, eps);
  }
  void do_normalize_rms(be::Items<float> x, std::int64_t n, const float* sumsq,
                        float eps) override {
    add(flops::kNormalizeRms, n * x.count());
    inner_.normalize_rms(x, n, sumsq, eps);
  }
  void do_axpby(void* y, const void* x, be::ElementType t, std::int64_t n, float alpha,
                float beta) override {
    add(flops::kAxpby, n);
    inner_.axpby(y, x, t, n, alpha, beta);
  }
  void do_ema(be::Items<float> m, be::Items<const float> g, std::int64_t n, float beta) override {
    add(flops::kEma, n * m.count());
    inner_.ema(m, g, n, beta);
  }
  void do_ema_square(be::Items<float> v, be::Items<const float> g, std::int64_t n,
                     float beta) override {
    add(flops::kEmaSquare, n * v.count());
    inner_.ema_square(v, g, n, beta);
  }
  void do_adam_direction(be::Items<const float> m, be::Items<const float> v, be::Items<float> out,
                         std::int64_t n, float b1, float b2, float eps) override {
    add(flops::kAdamDirection, n * m.count());
    inner_.adam_direction(m, v, out, n, b1, b2, eps);
  }
  void do_divide_sqrt_eps(be::Items<const float> x, be::Items<const float> v, be::Items<float> out,
                          std::int64_t n, float eps) override {
    add(flops::kDivideSqrtEps, n * x.count());
    inner_.divide_sqrt_eps(x, v, out, n, eps);
  }
  void do_apply_update(be::Items<float> p, be::Items<const void> u, be::ElementType t,
                       std::int64_t n, float lr, float wd, float scale, be::DecayOrder order,
                       const float* num, const float* den) override {
    add(flops::kApplyUpdate, n * p.count());
    inner_.apply_update(p, u, t, n, lr, wd, scale, order, num, den);
  }
  void do_adamw_step(be::Items<float> p, be::Items<const float> g, be::Items<float> m,
                     be::Items<float> v, std::int64_t n, float lr, float beta1, float beta2,
                     float eps, float wd, float bias1, float bias2) override {
    add(flops::kAdamWStep, n * p.count());
    inner_.adamw_step(p, g, m, v, n, lr, beta1, beta2, eps, wd, bias1, bias2);
  }
  void do_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) override {
    add(flops::kAddDiagonal, n * count);
    inner_.add_diagonal(a, n, count, value);
  }
  void do_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                            std::int64_t count, float eps, float exponent) override {
    add(flops::kScaleColumnsPow, n * n * count);
    inner_.scale_columns_pow(q, w, out, n, count, eps, exponent);
  }
  void do_reverse_columns(float* a, std::int64_t n, std::int64_t count) override {
    inner_.reverse_columns(a, n, count);
  }
  void do_argsort_descending(const float* values, std::int64_t n, std::int64_t count, int* perm,
                             void* workspace) override {
    inner_.argsort_descending(values, n, count, perm, workspace);
  }
  std::size_t do_argsort_workspace_bytes(std::int64_t n, std::int64_t count) override {
    return inner_.argsort_workspace_bytes(n, count);
  }
  void do_permute_columns(be::Items<const float> a, std::int64_t rows, std::int64_t cols,
                          const int* perm, be::Items<float> out) override {
    inner_.permute_columns(a, rows, cols, perm, out);
  }
  void do_permute_rows(be::Items<const float> a, std::int64_t rows, std::int64_t cols,
                       const int* perm, be::Items<float> out) override {
    inner_.permute_rows(a, rows, cols, perm, out);
  }

 protected:
  void release(void* /*data*/) noexcept override {}

 private:
  void add(double per_element, std::int64_t elements) {
    flops += per_element * static_cast<double>(elements);
  }
  be::Backend& inner_;
};

struct Variant {
  const char* label;
  OptimizerSpec spec;
};

std::vector<Variant> variants() {
  std::vector<Variant> v;
  OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
  v.push_back({"muon bf16 nesterov", s});
  s.muon.nesterov = false;
  s.muon.ns_precision = NsPrecision::kFloat32;
  s.muon.ns_steps = 3;
  v.push_back({"muon fp32 plain 3 steps", s});
  s = test::test_spec(OptimizerKind::kShampoo);
  v.push_back({"shampoo", s});
  s.shampoo.max_precond_dim = 6;
  v.push_back({"shampoo max_precond_dim 6", s});
  s = test::test_spec(OptimizerKind::kSoap);
  v.push_back({"soap", s});
  s.soap.max_precond_dim = 6;
  s.soap.normalize_grads = true;
  v.push_back({"soap max_precond_dim 6 normalize_grads", s});
  v.push_back({"adamw", test::test_spec(OptimizerKind::kAdamW)});
  return v;
}

/// FLOPs counted on each of 13 steps equal the model: step 1 first_step_flops, then hot_flops
/// plus refresh_flops on the refresh steps (Shampoo: t ≡ 1 mod k; SOAP: update number
/// t = call − 1 with t ≡ 0 mod f). Every convention yields an integer (the QR count is
/// rounded), so the per-step totals are exact in double and compared with ==.
TEST(CostModelTest, ModelEqualsCountedFlopsOfTheImplementation) {
  const std::uint64_t seed = canzona::testing::test_seed();
  auto inner = backend::make_backend("cpu");
  for (const Variant& variant : variants()) {
    for (const auto& shape : test::test_shapes()) {
      const Shape s = shape.shape;
      SCOPED_TRACE(fmt::format("seed {}, {} on [{}, {}]", seed, variant.label, s.rows, s.cols));
      CountingBackend counting(*inner);
      auto opt = make_matrix_optimizer(variant.spec, counting);
      auto state = opt->make_state(s.rows, s.cols);
      test::DeviceArray p(counting, s.rows * s.cols);
      test::DeviceArray g(counting, s.rows * s.cols);
      p.upload(test::fp32_exact(reference::random_normal(s.rows, s.cols, seed)));
      const StepCost cost = step_cost(variant.spec, s.rows, s.cols);
      for (int call = 1; call <= 13; ++call) {
        g.upload(test::test_gradient(s, seed + static_cast<std::uint64_t>(call)));
        counting.flops = 0;
        opt->step(*state, p.data(), g.data());
        const double counted = counting.flops;
        double expected = cost.hot_flops;
        if (call == 1) {
          expected = cost.first_step_flops;
        } else if (variant.spec.kind == OptimizerKind::kShampoo &&
                   (call - 1) % cost.refresh_interval == 0) {
          expected += cost.refresh_flops;
        } else if (variant.spec.kind == OptimizerKind::kSoap &&
                   (call - 1) % cost.refresh_interval == 0) {
          expected += cost.refresh_flops;
        }
        EXPECT_EQ(counted, expected) << "call " << call;
      }
    }
  }
}

TEST(CostModelTest, StateBytesEqualBytesAllocated) {
  auto inner = backend::make_backend("cpu");
  for (const Variant& variant : variants()) {
    for (const auto& shape : test::test_shapes()) {
      const Shape s = shape.shape;
      SCOPED_TRACE(fmt::format("{} on [{}, {}]", variant.label, s.rows, s.cols));
      CountingBackend counting(*inner);
      auto opt = make_matrix_optimizer(variant.spec, counting);
      const std::size_t ws_before = opt->reserved_workspace_bytes();
      const std::size_t before = counting.allocated;
      auto state = opt->make_state(s.rows, s.cols);
      const std::size_t ws_grown = opt->reserved_workspace_bytes() - ws_before;
      const std::size_t state_allocated = counting.allocated - before - ws_grown;
      const StepCost cost = step_cost(variant.spec, s.rows, s.cols);
      EXPECT_EQ(state_allocated, opt->state_bytes(s.rows, s.cols));
      EXPECT_EQ(static_cast<std::int64_t>(state_allocated), cost.state_bytes);
      EXPECT_EQ(state->bytes(), state_allocated);
      // Workspace: the model leaves out the backend's solver workspaces (and the alignment
      // of that last region); everything else is the very layout the step carves.
      const std::size_t ws = opt->workspace_bytes(s.rows, s.cols, 1);
      EXPECT_EQ(ws_grown, ws);
      std::size_t solver = 0;
      for (const std::int64_t d : {s.rows, s.cols}) {
        solver = std::max({solver, inner->eigh_workspace_bytes(d, 1),
                           inner->orthonormalize_workspace_bytes(d, d),
                           inner->argsort_workspace_bytes(d, 1)});
      }
      EXPECT_GE(ws, static_cast<std::size_t>(cost.workspace_bytes));
      EXPECT_LE(ws, static_cast<std::size_t>(cost.workspace_bytes) + solver + 256);
      if (variant.spec.kind == OptimizerKind::kMuon || variant.spec.kind == OptimizerKind::kAdamW) {
        EXPECT_EQ(ws, static_cast<std::size_t>(cost.workspace_bytes));
      }
    }
  }
}

TEST(CostModelTest, MeanFlopsAmortiseTheRefreshAndShapesAreValidated) {
  OptimizerSpec s = test::test_spec(OptimizerKind::kShampoo);
  const StepCost c = step_cost(s, 64, 32);
  EXPECT_EQ(c.refresh_interval, 3);
  EXPECT_DOUBLE_EQ(c.mean_flops(), c.hot_flops + c.refresh_flops / 3);
  EXPECT_DOUBLE_EQ(c.first_step_flops, c.hot_flops + c.refresh_flops);
  EXPECT_THROW(step_cost(s, 0, 3), ConfigError);
  s.shampoo.refresh_interval = 0;
  EXPECT_THROW(step_cost(s, 4, 3), ConfigError);

  // Muon: 5 NS iterations of Gram (2·d²·D) + S·S (2·d³) + update (2·D·d²), plus element-wise.
  const StepCost m = step_cost(test::test_spec(OptimizerKind::kMuon), 4096, 1024);
  const double d = 1024, big = 4096, n = d * big;
  EXPECT_DOUBLE_EQ(m.hot_flops, 5 * (4 * big * d * d + 2 * d * d * d) + n * (1 + 6 + 2 + 1 + 3));
  EXPECT_EQ(m.refresh_flops, 0);
  EXPECT_EQ(m.state_bytes, 4096 * 1024 * 4);
}

}  // namespace
}  // namespace canzona::optim
