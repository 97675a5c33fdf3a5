// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// AdamW against hand values and closed-form moment sums.
#include "test_util.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/reference/adamw_reference.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace canzona::optim::reference {
namespace {

TEST(AdamWReferenceTest, FirstStepIsSignLikeUpdate) {
  // t = 1: m̂ = g, v̂ = g², so p ← p·(1 − lr·wd) − lr·g/(|g| + eps).
  AdamWOptions o;
  o.lr = 0.1;
  o.weight_decay = 0.1;
  o.eps = 1e-8;
  AdamWReference adam(o);
  std::vector<double> p = {1.0, -2.0, 0.5};
  adam.step(p, {0.5, -4.0, 0.0});
  EXPECT_DOUBLE_EQ(p[0], 0.99 - 0.1 * 0.5 / (0.5 + 1e-8));
  EXPECT_DOUBLE_EQ(p[1], -1.98 + 0.1 * 4.0 / (4.0 + 1e-8));
  EXPECT_DOUBLE_EQ(p[2], 0.495);
}

TEST(AdamWReferenceTest, TrajectoryMatchesClosedFormMoments) {
  SCOPED_TRACE(test::seed_message());
  auto rng = test::make_rng(501);
  AdamWOptions o;
  o.lr = 0.03;
  o.beta1 = 0.8;
  o.beta2 = 0.9;
  o.eps = 1e-3;
  o.weight_decay = 0.2;
  AdamWReference adam(o);
  const Matrix p0 = test::random_matrix(3, 4, rng);
  Matrix p = p0;
  Matrix expected = p0;
  std::vector<Matrix> grads;
  for (int t = 1; t <= 4; ++t) {
    grads.push_back(test::random_matrix(3, 4, rng));
    adam.step(p, grads.back());
    for (std::size_t i = 0; i < p.data.size(); ++i) {
      double m = 0.0;
      double v = 0.0;
      for (int j = 1; j <= t; ++j) {
        const double g = grads[j - 1].data[i];
        m += (1 - o.beta1) * std::pow(o.beta1, t - j) * g;
        v += (1 - o.beta2) * std::pow(o.beta2, t - j) * g * g;
      }
      EXPECT_NEAR(adam.exp_avg()[i], m, 1e-15);
      EXPECT_NEAR(adam.exp_avg_sq()[i], v, 1e-15);
      const double m_hat = m / (1 - std::pow(o.beta1, t));
      const double v_hat = v / (1 - std::pow(o.beta2, t));
      expected.data[i] = expected.data[i] * (1 - o.lr * o.weight_decay) -
                         o.lr * m_hat / (std::sqrt(v_hat) + o.eps);
    }
    EXPECT_TRUE(test::matrices_near(p, expected, 1e-14)) << "step " << t;
  }
  EXPECT_EQ(adam.steps(), 4);
}

TEST(AdamWReferenceTest, LengthMismatchThrows) {
  AdamWReference adam(AdamWOptions{});
  std::vector<double> p(3, 0.0);
  EXPECT_THROW(adam.step(p, std::vector<double>(2, 0.0)), canzona::Error);
  adam.step(p, std::vector<double>(3, 1.0));
  std::vector<double> q(4, 0.0);
  EXPECT_THROW(adam.step(q, std::vector<double>(4, 0.0)), canzona::Error);
}

}  // namespace
}  // namespace canzona::optim::reference
