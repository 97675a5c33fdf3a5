// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SOAP: the initialising call, eigenbasis order and orthonormality, the refresh rule replayed
// step by step, rotated Adam in closed form for a constant gradient, skipped sides.
#include "test_util.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/reference/linalg.hpp>
#include <canzona/optim/reference/soap_reference.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace canzona::optim::reference {
namespace {

using test::make_rng;
using test::matrices_near;
using test::orthonormality_error;
using test::random_matrix;
using test::seed_message;

Matrix outer(const Matrix& g, int side) {
  return side == 0 ? matmul(g, transpose(g)) : matmul(transpose(g), g);
}

TEST(SoapReferenceTest, FirstCallInitialisesWithoutUpdate) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(401);
  for (const double shampoo_beta : {0.99, -1.0}) {
    SoapOptions o;
    o.shampoo_beta = shampoo_beta;
    o.beta2 = 0.9;
    const double beta_s = shampoo_beta < 0 ? 0.9 : shampoo_beta;
    SoapReference soap(o);
    EXPECT_DOUBLE_EQ(soap.shampoo_beta(), beta_s);
    const Matrix p0 = random_matrix(4, 3, rng);
    const Matrix g = random_matrix(4, 3, rng);
    Matrix p = p0;
    soap.step(p, g);
    EXPECT_EQ(p.data, p0.data) << "no parameter update on the first call";
    EXPECT_TRUE(soap.initialized());
    EXPECT_EQ(soap.steps(), 0);
    EXPECT_EQ(soap.exp_avg().data, zeros(4, 3).data);
    EXPECT_EQ(soap.exp_avg_sq().data, zeros(4, 3).data);
    for (int side = 0; side < 2; ++side) {
      EXPECT_TRUE(soap.has_q(side));
      EXPECT_TRUE(matrices_near(soap.gg(side), scale(outer(g, side), 1.0 - beta_s), 1e-15));
    }
    // The second call is step t = 1 and does update.
    soap.step(p, g);
    EXPECT_EQ(soap.steps(), 1);
    EXPECT_NE(p.data, p0.data);
  }
}

TEST(SoapReferenceTest, InitialBasisIsOrthonormalAndDescending) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(402);
  for (const test::Shape& shape : test::test_shapes()) {
    SCOPED_TRACE(::testing::Message() << shape.rows << "x" << shape.cols);
    SoapReference soap(SoapOptions{});
    Matrix p = zeros(shape.rows, shape.cols);
    soap.step(p, random_matrix(shape.rows, shape.cols, rng));
    for (int side = 0; side < 2; ++side) {
      const Matrix& q = soap.q(side);
      const Matrix& gg = soap.gg(side);
      const double norm = frobenius_norm(gg);
      EXPECT_LE(orthonormality_error(q), 1e-13) << "side " << side;
      const Matrix d = matmul(transpose(q), matmul(gg, q));
      for (std::int64_t i = 0; i < d.rows; ++i) {
        for (std::int64_t j = 0; j < d.cols; ++j) {
          if (i != j) {
            EXPECT_NEAR(d(i, j), 0.0, 1e-13 * norm) << "QᵀGGQ diagonal, side " << side;
          }
        }
        if (i > 0) {
          EXPECT_GE(d(i - 1, i - 1), d(i, i) - 1e-13 * norm) << "descending, side " << side;
        }
      }
    }
  }
}

// Replays one step from the state before it, following the header's pseudocode literally, and
// compares GG, V and Q; the gradients switch their dominant row/column so the sort permutes.
TEST(SoapReferenceTest, RefreshFollowsTheRuleAndKeepsQOrthonormal) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(403);
  for (const test::Shape& shape : {test::Shape{5, 5}, test::Shape{6, 4}, test::Shape{3, 5}}) {
    SCOPED_TRACE(::testing::Message() << shape.rows << "x" << shape.cols);
    SoapOptions o;
    o.precondition_frequency = 3;
    o.shampoo_beta = 0.5;  // fast statistics so the order of eigenvalues actually changes
    SoapReference soap(o);
    Matrix p = random_matrix(shape.rows, shape.cols, rng);
    bool permuted = false;
    for (int call = 0; call <= 9; ++call) {
      Matrix g = random_matrix(shape.rows, shape.cols, rng);
      // Early gradients are large in row/col 0, later ones in the last row/col.
      const std::int64_t hot_row = call < 4 ? 0 : shape.rows - 1;
      const std::int64_t hot_col = call < 4 ? 0 : shape.cols - 1;
      for (std::int64_t j = 0; j < shape.cols; ++j) {
        g(hot_row, j) *= 10.0;
      }
      for (std::int64_t i = 0; i < shape.rows; ++i) {
        g(i, hot_col) *= 10.0;
      }
      const Matrix q_old[2] = {soap.q(0), soap.q(1)};
      const Matrix gg_old[2] = {soap.gg(0), soap.gg(1)};
      const Matrix v_old = soap.exp_avg_sq();
      soap.step(p, g);
      if (call == 0) {
        continue;
      }
      const std::int64_t t = soap.steps();
      ASSERT_EQ(t, call);
      Matrix v = axpby(o.beta2, v_old, 1.0 - o.beta2,
                       square(matmul(matmul(transpose(q_old[0]), g), q_old[1])));
      for (int side = 0; side < 2; ++side) {
        const Matrix gg = axpby(0.5, gg_old[side], 0.5, outer(g, side));
        EXPECT_TRUE(matrices_near(soap.gg(side), gg, 1e-12, 1e-14));
        const Matrix& q = soap.q(side);
        EXPECT_LE(orthonormality_error(q), 1e-13) << "step " << t << " side " << side;
        if (t % 3 != 0) {
          EXPECT_EQ(q.data, q_old[side].data) << "Q changes only when t % f == 0, t = " << t;
          continue;
        }
        const Matrix rotated = matmul(transpose(q_old[side]), matmul(gg, q_old[side]));
        std::vector<double> lambda;
        for (std::int64_t i = 0; i < rotated.rows; ++i) {
          lambda.push_back(rotated(i, i));
        }
        const std::vector<std::int64_t> pi = argsort_descending(lambda);
        Matrix q_sorted = q_old[side];
        Matrix v_sorted = v;
        for (std::int64_t k = 0; k < rotated.rows; ++k) {
          permuted = permuted || pi[k] != k;
          for (std::int64_t i = 0; i < q_sorted.rows; ++i) {
            q_sorted(i, k) = q_old[side](i, pi[k]);
          }
          if (side == 0) {
            for (std::int64_t j = 0; j < v.cols; ++j) {
              v_sorted(k, j) = v(pi[k], j);
            }
          } else {
            for (std::int64_t i = 0; i < v.rows; ++i) {
              v_sorted(i, k) = v(i, pi[k]);
            }
          }
        }
        v = v_sorted;
        EXPECT_TRUE(matrices_near(q, qr_householder(matmul(gg, q_sorted)).q, 1e-12))
            << "step " << t << " side " << side;
      }
      EXPECT_TRUE(matrices_near(soap.exp_avg_sq(), v, 1e-12, 1e-12)) << "step " << t;
    }
    EXPECT_TRUE(permuted) << "the test data must make the refresh permute";
  }
}

TEST(SoapReferenceTest, ArgsortDescendingKeepsTiesInIndexOrder) {
  EXPECT_EQ(argsort_descending({1.0, 3.0, 2.0, 3.0, 1.0}),
            (std::vector<std::int64_t>{1, 3, 2, 0, 4}));
}

// Constant G = U·diag(s)·Vᵀ: the eigenbases are U and V (completed by null-space vectors, where
// Ĝ = 0), M_t = (1 − β1^t)·G, V_t = (1 − β2^t)·Ĝ², so with bias correction
//     N_t = U·diag(s / (s + eps/sqrt(1 − β2^t)))·Vᵀ
// whatever the signs or the null-space basis; then p ← (p − lr·N)·(1 − lr·wd).
// The element-wise division turns the eigenbasis' rounding error in Ĝ's off-diagonal entries
// (about u·‖G‖²/gap ≈ 1e-13 here) into an error of that size divided by eps_t, so eps = 1e-3
// keeps the closed form exact to ~1e-10 while s/(s + eps_t) still differs from 1 by up to 4 %.
TEST(SoapReferenceTest, ConstantGradientIsRotatedAdamInClosedForm) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(404);
  for (const test::Shape& shape : test::test_shapes()) {
    SCOPED_TRACE(::testing::Message() << shape.rows << "x" << shape.cols);
    const std::vector<double> all = {3.0, 1.7, 0.9, 0.4, 0.2, 0.1};
    const std::vector<double> s(all.begin(), all.begin() + std::min(shape.rows, shape.cols));
    const test::Svd svd = test::make_svd(shape.rows, shape.cols, s, rng);
    SoapOptions o;
    o.lr = 0.01;
    o.weight_decay = 0.1;
    o.beta1 = 0.9;
    o.beta2 = 0.95;
    o.eps = 1e-3;
    o.precondition_frequency = 2;  // refreshes on t = 2, 4 must not disturb the basis
    SoapReference soap(o);
    Matrix p = random_matrix(shape.rows, shape.cols, rng);
    soap.step(p, svd.g);
    Matrix p_expected = p;
    for (int t = 1; t <= 5; ++t) {
      soap.step(p, svd.g);
      const double eps_t = o.eps / std::sqrt(1.0 - std::pow(o.beta2, t));
      std::vector<double> d;
      for (const double x : s) {
        d.push_back(x / (x + eps_t));
      }
      const Matrix n = test::compose(svd, d);
      EXPECT_TRUE(matrices_near(soap.last_direction(), n, 1e-9)) << "step " << t;
      EXPECT_TRUE(matrices_near(soap.exp_avg(), scale(svd.g, 1.0 - std::pow(o.beta1, t)), 1e-14));
      p_expected = scale(subtract(p_expected, scale(n, o.lr)), 1.0 - o.lr * o.weight_decay);
      EXPECT_TRUE(matrices_near(p, p_expected, 1e-10)) << "step " << t;
    }
  }
}

// 6 × 3 with max_precond_dim = 4: only the columns rotate, Ĝ = G·Q₁, and with a constant
// gradient N_t = (Ĝ ⊘ (|Ĝ| + eps/sqrt(1 − β2^t)))·Q₁ᵀ.
TEST(SoapReferenceTest, MaxPrecondDimSkipsASide) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(405);
  for (const bool transposed : {false, true}) {
    const Matrix g0 = random_matrix(6, 3, rng);
    const Matrix g = transposed ? transpose(g0) : g0;
    const int kept = transposed ? 0 : 1;
    SoapOptions o;
    o.max_precond_dim = 4;
    o.eps = 1e-6;
    o.precondition_frequency = 100;
    SoapReference soap(o);
    Matrix p = zeros(g.rows, g.cols);
    soap.step(p, g);
    EXPECT_FALSE(soap.has_q(1 - kept));
    EXPECT_TRUE(soap.has_q(kept));
    EXPECT_EQ(soap.q(1 - kept).numel(), 0);
    EXPECT_EQ(soap.gg(1 - kept).numel(), 0);
    for (int t = 1; t <= 3; ++t) {
      soap.step(p, g);
      const Matrix& q = soap.q(kept);
      const Matrix g_hat = kept == 1 ? matmul(g, q) : matmul(transpose(q), g);
      const double eps_t = o.eps / std::sqrt(1.0 - std::pow(o.beta2, t));
      Matrix ratio = g_hat;
      for (double& x : ratio.data) {
        x /= std::abs(x) + eps_t;
      }
      const Matrix n = kept == 1 ? matmul(ratio, transpose(q)) : matmul(q, ratio);
      EXPECT_TRUE(matrices_near(soap.last_direction(), n, 1e-12))
          << "transposed " << transposed << " step " << t;
    }
  }
}

TEST(SoapReferenceTest, NormalizeGradsGivesUnitRms) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(406);
  SoapOptions o;
  o.normalize_grads = true;
  o.correct_bias = false;
  SoapReference soap(o);
  Matrix p = random_matrix(5, 4, rng);
  for (int call = 0; call < 4; ++call) {
    soap.step(p, random_matrix(5, 4, rng));
  }
  EXPECT_NEAR(rms(soap.last_direction()), 1.0, 1e-12);
}

TEST(SoapReferenceTest, ShapeChangeThrows) {
  SoapReference soap(SoapOptions{});
  Matrix p = zeros(2, 3);
  soap.step(p, from_rows({{1, 2, 3}, {4, 5, 6}}));
  Matrix q = zeros(3, 2);
  EXPECT_THROW(soap.step(q, zeros(3, 2)), canzona::Error);
  EXPECT_THROW(soap.q(2), canzona::Error);
}

}  // namespace
}  // namespace canzona::optim::reference
