// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shampoo: first step in closed form from an explicit SVD, refresh cadence, grafting norm,
// EMA statistics and skipped sides.
#include "test_util.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/reference/linalg.hpp>
#include <canzona/optim/reference/shampoo_reference.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace canzona::optim::reference {
namespace {

using test::make_rng;
using test::matrices_near;
using test::random_matrix;
using test::seed_message;

std::vector<double> spectrum(const test::Shape& shape) {
  const std::vector<double> all = {2.0, 1.5, 0.7, 0.3, 0.2, 0.1};
  return {all.begin(), all.begin() + std::min(shape.rows, shape.cols)};
}

// D_g = M̂ ⊘ (sqrt(A/(1 − β2g^t)) + εg), from the exposed state.
Matrix graft_direction(const ShampooReference& s) {
  const ShampooOptions& o = s.options();
  const auto t = static_cast<double>(s.steps());
  Matrix d = scale(s.momentum(), 1.0 / (1.0 - std::pow(o.beta1, t)));
  const Matrix a = s.graft_second_moment();
  for (std::size_t i = 0; i < d.data.size(); ++i) {
    d.data[i] /= std::sqrt(a.data[i] / (1.0 - std::pow(o.graft_beta2, t))) + o.graft_epsilon;
  }
  return d;
}

// β1 = β2 = 0: M̂ = G, L = G·Gᵀ, R = Gᵀ·G exactly. For G = U·diag(s)·Vᵀ,
// L⁻¼·G·R⁻¼ = U·diag(s·(s² + ε)^(−1/2))·Vᵀ, and D_g = G ⊘ (|G| + εg).
TEST(ShampooReferenceTest, FirstStepWithExactStatisticsMatchesSvdForm) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(301);
  for (const test::Shape& shape : test::test_shapes()) {
    SCOPED_TRACE(::testing::Message() << shape.rows << "x" << shape.cols);
    const test::Svd svd = test::make_svd(shape.rows, shape.cols, spectrum(shape), rng);
    ShampooOptions o;
    o.lr = 0.05;
    o.weight_decay = 0.3;
    o.beta1 = 0.0;
    o.beta2 = 0.0;
    o.epsilon = 1e-6;  // large enough that round-off in the zero eigenvalues of L is negligible
    o.graft_beta2 = 0.999;
    o.graft_epsilon = 1e-8;
    ShampooReference shampoo(o);
    const Matrix p0 = random_matrix(shape.rows, shape.cols, rng);
    Matrix p = p0;
    shampoo.step(p, svd.g);

    EXPECT_TRUE(matrices_near(shampoo.left_stats(), matmul(svd.g, transpose(svd.g)), 1e-14));
    EXPECT_TRUE(matrices_near(shampoo.right_stats(), matmul(transpose(svd.g), svd.g), 1e-14));
    std::vector<double> d;
    for (const double s : svd.s) {
      d.push_back(s / std::sqrt(s * s + o.epsilon));
    }
    const Matrix d_s = test::compose(svd, d);
    Matrix d_g = svd.g;
    for (double& x : d_g.data) {
      x /= std::abs(x) + o.graft_epsilon;
    }
    const Matrix direction = scale(d_s, frobenius_norm(d_g) / frobenius_norm(d_s));
    EXPECT_TRUE(matrices_near(shampoo.last_direction(), direction, 1e-9, 1e-9));
    EXPECT_TRUE(matrices_near(
        p, subtract(scale(p0, 1.0 - o.lr * o.weight_decay), scale(direction, o.lr)), 1e-10));
  }
}

TEST(ShampooReferenceTest, StatisticsAreExponentialMovingAverages) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(302);
  ShampooOptions o;
  o.beta1 = 0.6;
  o.beta2 = 0.7;
  o.graft_beta2 = 0.8;
  ShampooReference shampoo(o);
  Matrix p = random_matrix(5, 3, rng);
  std::vector<Matrix> grads;
  for (int t = 1; t <= 3; ++t) {
    grads.push_back(random_matrix(5, 3, rng));
    shampoo.step(p, grads.back());
  }
  Matrix l = zeros(5, 5);
  Matrix r = zeros(3, 3);
  Matrix m = zeros(5, 3);
  Matrix a = zeros(5, 3);
  for (int j = 1; j <= 3; ++j) {
    const Matrix& g = grads[j - 1];
    l = add(l, scale(matmul(g, transpose(g)), (1 - o.beta2) * std::pow(o.beta2, 3 - j)));
    r = add(r, scale(matmul(transpose(g), g), (1 - o.beta2) * std::pow(o.beta2, 3 - j)));
    m = add(m, scale(g, (1 - o.beta1) * std::pow(o.beta1, 3 - j)));
    a = add(a, scale(square(g), (1 - o.graft_beta2) * std::pow(o.graft_beta2, 3 - j)));
  }
  EXPECT_TRUE(matrices_near(shampoo.left_stats(), l, 1e-13));
  EXPECT_TRUE(matrices_near(shampoo.right_stats(), r, 1e-13));
  EXPECT_TRUE(matrices_near(shampoo.momentum(), m, 1e-14));
  EXPECT_TRUE(matrices_near(shampoo.graft_second_moment(), a, 1e-14));
  EXPECT_EQ(shampoo.steps(), 3);
}

TEST(ShampooReferenceTest, RootsRefreshOnlyOnSteps1Plus3k) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(303);
  ShampooOptions o;
  o.refresh_interval = 3;
  o.weight_decay = 0.0;
  o.lr = 1.0;
  ShampooReference shampoo(o);
  Matrix p = random_matrix(4, 6, rng);
  Matrix left;
  Matrix right;
  for (int t = 1; t <= 8; ++t) {
    const Matrix g = random_matrix(4, 6, rng);
    const Matrix before = p;
    shampoo.step(p, g);
    const bool refresh = (t - 1) % 3 == 0;
    if (refresh) {
      EXPECT_NE(shampoo.left_root().data, left.data) << "step " << t;
      EXPECT_NE(shampoo.right_root().data, right.data) << "step " << t;
      // Computed from the statistics after this step's update.
      EXPECT_EQ(shampoo.left_root().data, inverse_root(shampoo.left_stats(), 4, o.epsilon).data);
      EXPECT_EQ(shampoo.right_root().data, inverse_root(shampoo.right_stats(), 4, o.epsilon).data);
    } else {
      EXPECT_EQ(shampoo.left_root().data, left.data) << "step " << t;
      EXPECT_EQ(shampoo.right_root().data, right.data) << "step " << t;
    }
    left = shampoo.left_root();
    right = shampoo.right_root();
    // D uses the roots held now (stale between refreshes), with lr = 1 and no decay: D = p₀ − p.
    const Matrix m_hat = scale(shampoo.momentum(), 1.0 / (1.0 - std::pow(o.beta1, t)));
    const Matrix d_s = matmul(matmul(left, m_hat), right);
    const Matrix d = scale(d_s, frobenius_norm(graft_direction(shampoo)) / frobenius_norm(d_s));
    EXPECT_TRUE(matrices_near(subtract(before, p), d, 1e-12, 1e-12)) << "step " << t;
  }
}

// DistributedShampoo's schedule: Adam alone before the start step, roots at k, 2k, … from the
// bias-corrected statistics.
TEST(ShampooReferenceTest, DistributedShampooScheduleAndBiasCorrection) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(404);
  ShampooOptions o;
  o.refresh_interval = 3;
  o.start_preconditioning_step = 3;
  o.refresh_at_multiples = true;
  o.bias_correct_statistics = true;
  o.weight_decay = 0.0;
  o.lr = 1.0;
  ShampooReference shampoo(o);
  Matrix p = random_matrix(4, 6, rng);
  for (int t = 1; t <= 7; ++t) {
    const Matrix g = random_matrix(4, 6, rng);
    const Matrix before = p;
    shampoo.step(p, g);
    if (t < 3) {
      EXPECT_TRUE(matrices_near(subtract(before, p), graft_direction(shampoo), 1e-12, 1e-12))
          << "step " << t << ": Adam alone";
      continue;
    }
    if (t % 3 == 0) {
      const double c = 1.0 / (1.0 - std::pow(o.beta2, t));
      EXPECT_EQ(shampoo.left_root().data,
                inverse_root(scale(shampoo.left_stats(), c), 4, o.epsilon).data)
          << "step " << t;
    }
  }
  ShampooOptions bad = o;
  bad.start_preconditioning_step = 2;  // before the first root at step 3
  OptimizerSpec spec;
  spec.kind = OptimizerKind::kShampoo;
  spec.shampoo = bad;
  EXPECT_THROW(validate(spec), ConfigError);
}

TEST(ShampooReferenceTest, GraftedDirectionHasAdamNorm) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(304);
  for (const test::Shape& shape : test::test_shapes()) {
    SCOPED_TRACE(::testing::Message() << shape.rows << "x" << shape.cols);
    ShampooOptions o;
    o.refresh_interval = 2;
    ShampooReference shampoo(o);
    Matrix p = random_matrix(shape.rows, shape.cols, rng);
    for (int t = 1; t <= 5; ++t) {
      shampoo.step(p, random_matrix(shape.rows, shape.cols, rng));
      const double adam_norm = frobenius_norm(graft_direction(shampoo));
      EXPECT_NEAR(frobenius_norm(shampoo.last_direction()), adam_norm, 1e-12 * adam_norm)
          << "step " << t;
    }
  }
}

// 6 × 3 with max_precond_dim = 4: no L, D_s = M̂·R⁻¼ = U·diag(s·(s² + ε)^(−1/4))·Vᵀ; the
// transposed case skips R instead; max_precond_dim = 2 skips both and D_s = M̂.
TEST(ShampooReferenceTest, MaxPrecondDimSkipsASide) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(305);
  const std::vector<double> s = {2.0, 0.9, 0.4};
  const test::Svd svd = test::make_svd(6, 3, s, rng);
  ShampooOptions o;
  o.beta1 = 0.0;
  o.beta2 = 0.0;
  o.epsilon = 1e-6;
  o.max_precond_dim = 4;
  std::vector<double> d;
  for (const double x : s) {
    d.push_back(x * std::pow(x * x + o.epsilon, -0.25));
  }
  const Matrix d_s = test::compose(svd, d);
  auto unit = [](const Matrix& m) { return scale(m, 1.0 / frobenius_norm(m)); };

  ShampooReference tall(o);
  Matrix p = zeros(6, 3);
  tall.step(p, svd.g);
  EXPECT_FALSE(tall.has_left());
  EXPECT_TRUE(tall.has_right());
  EXPECT_EQ(tall.left_stats().numel(), 0);
  EXPECT_EQ(tall.left_root().numel(), 0);
  EXPECT_TRUE(matrices_near(unit(tall.last_direction()), unit(d_s), 1e-10));

  ShampooReference wide(o);
  Matrix pt = zeros(3, 6);
  wide.step(pt, transpose(svd.g));
  EXPECT_TRUE(wide.has_left());
  EXPECT_FALSE(wide.has_right());
  EXPECT_TRUE(matrices_near(unit(wide.last_direction()), unit(transpose(d_s)), 1e-10));

  o.max_precond_dim = 2;
  ShampooReference neither(o);
  Matrix pn = zeros(6, 3);
  neither.step(pn, svd.g);
  EXPECT_FALSE(neither.has_left());
  EXPECT_FALSE(neither.has_right());
  EXPECT_TRUE(matrices_near(unit(neither.last_direction()), unit(svd.g), 1e-14));
}

TEST(ShampooReferenceTest, ShapeChangeThrows) {
  ShampooReference shampoo(ShampooOptions{});
  Matrix p = zeros(2, 3);
  shampoo.step(p, from_rows({{1, 2, 3}, {4, 5, 6}}));
  Matrix q = zeros(3, 2);
  EXPECT_THROW(shampoo.step(q, zeros(3, 2)), canzona::Error);
}

}  // namespace
}  // namespace canzona::optim::reference
