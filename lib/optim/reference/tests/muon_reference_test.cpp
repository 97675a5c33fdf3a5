// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Newton–Schulz against its scalar map on singular values (every coefficient set), and Muon's
// momentum, Nesterov, scaling and weight decay against formulas written out in the test.
#include "test_util.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/coefficients.hpp>
#include <canzona/optim/reference/linalg.hpp>
#include <canzona/optim/reference/muon_reference.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace canzona::optim::reference {
namespace {

using test::make_rng;
using test::matrices_near;
using test::random_matrix;
using test::seed_message;

constexpr NsCoefficients kAllSets[] = {NsCoefficients::kSimple, NsCoefficients::kQuintic,
                                       NsCoefficients::kPolarExpress, NsCoefficients::kAolNvidia,
                                       NsCoefficients::kQwenExpress};

// The scalar map NS applies to each normalised singular value.
double scalar_map(NsCoefficients set, int steps, double sigma) {
  for (int i = 0; i < steps; ++i) {
    const NsTuple t = ns_tuple(set, i);
    const double s2 = sigma * sigma;
    sigma = t.a * sigma + t.b * sigma * s2 + t.c * sigma * s2 * s2;
  }
  return sigma;
}

// [min, max] of |f| over σ ∈ [lo, hi]: a fine grid, then every interior local extremum refined
// by ternary search so the band is exact to ~1e-15, not to the grid spacing.
std::pair<double, double> band(NsCoefficients set, int steps, double lo, double hi) {
  constexpr int kGrid = 20000;
  auto f = [&](double s) { return std::abs(scalar_map(set, steps, s)); };
  std::vector<double> x(kGrid + 1);
  std::vector<double> y(kGrid + 1);
  for (int k = 0; k <= kGrid; ++k) {
    x[k] = lo + (hi - lo) * k / kGrid;
    y[k] = f(x[k]);
  }
  const double grid_min = *std::min_element(y.begin(), y.end());
  const double grid_max = *std::max_element(y.begin(), y.end());
  double ymin = grid_min;
  double ymax = grid_max;
  // Only extrema that can move the band need refining; a 1e-4 margin is far above the grid error
  // (~f''·h²) and skips the many round-off wiggles where f has converged.
  for (int k = 1; k < kGrid; ++k) {
    const bool is_max = y[k] >= y[k - 1] && y[k] >= y[k + 1] && y[k] > grid_max - 1e-4;
    const bool is_min = y[k] <= y[k - 1] && y[k] <= y[k + 1] && y[k] < grid_min + 1e-4;
    if (!is_max && !is_min) {
      continue;
    }
    double a = x[k - 1];
    double b = x[k + 1];
    for (int it = 0; it < 100; ++it) {
      const double m1 = a + (b - a) / 3.0;
      const double m2 = b - (b - a) / 3.0;
      if ((f(m1) < f(m2)) == is_max) {
        a = m1;
      } else {
        b = m2;
      }
    }
    const double v = f(0.5 * (a + b));
    ymin = std::min(ymin, v);
    ymax = std::max(ymax, v);
  }
  return {ymin, ymax};
}

std::vector<double> normalised_singular_values(const Matrix& g) {
  std::vector<double> s = singular_values(g);
  const double norm = frobenius_norm(g);
  for (double& x : s) {
    x /= norm;
  }
  return s;
}

TEST(NewtonSchulzReferenceTest, SingularValuesFollowTheScalarMap) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(201);
  for (const NsCoefficients set : kAllSets) {
    const auto table_steps = static_cast<int>(ns_coefficients(set).size);
    for (const int steps : {1, 5, table_steps + 2}) {
      for (const test::Shape& shape : test::test_shapes()) {
        SCOPED_TRACE(::testing::Message() << to_string(set) << " steps " << steps << " "
                                          << shape.rows << "x" << shape.cols);
        const Matrix g = random_matrix(shape.rows, shape.cols, rng);
        std::vector<double> expected;
        for (const double s : normalised_singular_values(g)) {
          expected.push_back(std::abs(scalar_map(set, steps, s)));
        }
        std::sort(expected.begin(), expected.end(), std::greater<>());
        const std::vector<double> actual = singular_values(newton_schulz(g, steps, set, 1e-7));
        ASSERT_EQ(actual.size(), expected.size());
        for (std::size_t i = 0; i < actual.size(); ++i) {
          EXPECT_NEAR(actual[i], expected[i], 1e-9) << "σ_" << i;
        }
      }
    }
  }
}

TEST(NewtonSchulzReferenceTest, OutputSingularValuesStayInTheSetsBand) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(202);
  for (const NsCoefficients set : kAllSets) {
    const auto steps = std::max(5, static_cast<int>(ns_coefficients(set).size));
    for (const test::Shape& shape : test::test_shapes()) {
      SCOPED_TRACE(::testing::Message()
                   << to_string(set) << " " << shape.rows << "x" << shape.cols);
      const Matrix g = random_matrix(shape.rows, shape.cols, rng);
      const double smallest = normalised_singular_values(g).back();
      const auto [lo, hi] = band(set, steps, smallest, 1.0);
      for (const double s : singular_values(newton_schulz(g, steps, set, 1e-7))) {
        EXPECT_GE(s, lo - 1e-9) << "band [" << lo << ", " << hi << "]";
        EXPECT_LE(s, hi + 1e-9) << "band [" << lo << ", " << hi << "]";
      }
    }
  }
}

TEST(NewtonSchulzReferenceTest, MultipleOfOrthonormalMapsToItsScalarImage) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(203);
  // All normalised singular values of c·Q (Q n × k orthonormal) equal 1/sqrt(k), so the output
  // is exactly f(1/sqrt(k))·Q: direction preserved, magnitude from the scalar map.
  for (const NsCoefficients set : kAllSets) {
    for (const auto& [n, k] :
         std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 4}, {7, 3}, {5, 1}}) {
      SCOPED_TRACE(::testing::Message() << to_string(set) << " " << n << "x" << k);
      const Matrix q = test::random_orthonormal(n, k, rng);
      const double f = scalar_map(set, 8, 1.0 / std::sqrt(static_cast<double>(k)));
      EXPECT_TRUE(matrices_near(newton_schulz(scale(q, 3.7), 8, set, 1e-7), scale(q, f), 1e-12));
      EXPECT_TRUE(matrices_near(newton_schulz(scale(transpose(q), 0.01), 8, set, 1e-7),
                                scale(transpose(q), f), 1e-12));
    }
  }
  // Polar Express ends on (15/8, −5/4, 3/8): σ = 1 is the fixed point of the repeated tuple, so
  // extra steps leave a rank-1 input (normalised σ = 1) where 8 steps put it.
  const Matrix row = from_rows({{3, 0, -4}});
  EXPECT_TRUE(matrices_near(newton_schulz(row, 20, NsCoefficients::kPolarExpress, 1e-7),
                            newton_schulz(row, 8, NsCoefficients::kPolarExpress, 1e-7), 1e-6));
  const NsTuple last = ns_tuple(NsCoefficients::kPolarExpress, 100);
  EXPECT_NEAR(last.a + last.b + last.c, 1.0, 1e-15);
}

TEST(NewtonSchulzReferenceTest, TransposeSymmetry) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(204);
  for (const NsCoefficients set : kAllSets) {
    for (const test::Shape& shape : test::test_shapes()) {
      const Matrix g = random_matrix(shape.rows, shape.cols, rng);
      EXPECT_TRUE(matrices_near(newton_schulz(transpose(g), 5, set, 1e-7),
                                transpose(newton_schulz(g, 5, set, 1e-7)), 1e-13))
          << to_string(set) << " " << shape.rows << "x" << shape.cols;
    }
  }
}

TEST(NewtonSchulzReferenceTest, EpsGuardsTinyNormAndZero) {
  // ‖G‖_F = 1e-9 < eps = 1e-7: X = G / 1e-7 = 0.01·E₀₀, one simple step maps 0.01 to f(0.01).
  const Matrix g = from_rows({{1e-9, 0}, {0, 0}});
  const double x = 0.01;
  const double f = 3.4445 * x - 4.7750 * x * x * x + 2.0315 * x * x * x * x * x;
  EXPECT_TRUE(matrices_near(newton_schulz(g, 1, NsCoefficients::kSimple, 1e-7),
                            from_rows({{f, 0}, {0, 0}}), 1e-17));
  EXPECT_EQ(newton_schulz(zeros(3, 2), 5, NsCoefficients::kQuintic, 1e-7).data, zeros(3, 2).data);
  EXPECT_THROW(newton_schulz(g, -1, NsCoefficients::kSimple, 1e-7), canzona::Error);
}

TEST(MuonReferenceTest, ScaleFactors) {
  EXPECT_DOUBLE_EQ(muon_scale(MuonScale::kRmsMatch, 4, 2), 0.4);
  EXPECT_DOUBLE_EQ(muon_scale(MuonScale::kRmsMatch, 2, 9), 0.6);
  EXPECT_DOUBLE_EQ(muon_scale(MuonScale::kAspectRatio, 8, 2), 2.0);
  EXPECT_DOUBLE_EQ(muon_scale(MuonScale::kAspectRatio, 2, 8), 1.0);
  EXPECT_DOUBLE_EQ(muon_scale(MuonScale::kAspectRatio, 3, 2), std::sqrt(1.5));
}

// G = U·diag(3, 1)·Vᵀ with explicit U (rotation by θ) and V (orthonormal rows of thirds), so
// NS(G) = U·diag(f(3/√10), f(1/√10))·Vᵀ is known in closed form.
TEST(MuonReferenceTest, OneStepOn2x3MatchesHandComputation) {
  const double theta = 0.3;
  const double u[2][2] = {{std::cos(theta), -std::sin(theta)}, {std::sin(theta), std::cos(theta)}};
  const double v[3][2] = {{1.0 / 3, 2.0 / 3}, {2.0 / 3, 1.0 / 3}, {2.0 / 3, -2.0 / 3}};
  const double s[2] = {3.0, 1.0};
  auto outer = [&](const double d[2]) {
    Matrix m = zeros(2, 3);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        m(i, j) = u[i][0] * d[0] * v[j][0] + u[i][1] * d[1] * v[j][1];
      }
    }
    return m;
  };
  const Matrix g = outer(s);
  auto f5 = [](double x) {
    for (int i = 0; i < 5; ++i) {
      x = 3.4445 * x - 4.7750 * x * x * x + 2.0315 * x * x * x * x * x;
    }
    return x;
  };
  const double fs[2] = {f5(3.0 / std::sqrt(10.0)), f5(1.0 / std::sqrt(10.0))};
  const Matrix ns = outer(fs);
  const Matrix p0 = from_rows({{0.5, -1.0, 2.0}, {0.0, 0.25, -0.75}});

  for (const bool nesterov : {true, false}) {
    for (const MuonScale mode : {MuonScale::kRmsMatch, MuonScale::kAspectRatio}) {
      MuonOptions o;
      o.lr = 0.1;
      o.weight_decay = 0.5;
      o.momentum = 0.9;
      o.nesterov = nesterov;
      o.ns_steps = 5;
      o.coefficients = NsCoefficients::kSimple;
      o.scale = mode;
      MuonReference muon(o);
      Matrix p = p0;
      muon.step(p, g);
      // buf = 0.1·G; m = 0.19·G (Nesterov) or 0.1·G: NS is scale-invariant either way.
      const double factor = mode == MuonScale::kRmsMatch ? 0.2 * std::sqrt(3.0) : 1.0;
      Matrix expected = zeros(2, 3);
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          expected(i, j) = p0(i, j) * (1.0 - 0.1 * 0.5) - 0.1 * factor * ns(i, j);
        }
      }
      EXPECT_TRUE(matrices_near(p, expected, 1e-13)) << "nesterov " << nesterov;
      EXPECT_TRUE(matrices_near(muon.momentum(), scale(g, 0.1), 1e-16));
      EXPECT_EQ(muon.steps(), 1);
    }
  }
}

TEST(MuonReferenceTest, MomentumAndNesterovTrajectory) {
  SCOPED_TRACE(seed_message());
  auto rng = make_rng(205);
  for (const test::Shape& shape : test::test_shapes()) {
    for (const bool nesterov : {true, false}) {
      SCOPED_TRACE(::testing::Message()
                   << shape.rows << "x" << shape.cols << " nesterov " << nesterov);
      MuonOptions o;
      o.lr = 0.02;
      o.weight_decay = 0.1;
      o.momentum = 0.8;
      o.nesterov = nesterov;
      o.coefficients = NsCoefficients::kQuintic;
      o.scale = MuonScale::kAspectRatio;
      MuonReference muon(o);
      Matrix p = random_matrix(shape.rows, shape.cols, rng);
      Matrix p_expected = p;
      std::vector<Matrix> grads;
      for (int t = 1; t <= 4; ++t) {
        grads.push_back(random_matrix(shape.rows, shape.cols, rng));
        muon.step(p, grads.back());
        // buf_t = (1 − μ)·Σ_j μ^(t−j)·g_j, written as a sum rather than a recursion.
        Matrix buf = zeros(shape.rows, shape.cols);
        for (int j = 1; j <= t; ++j) {
          buf = add(buf, scale(grads[j - 1], (1.0 - o.momentum) * std::pow(o.momentum, t - j)));
        }
        EXPECT_TRUE(matrices_near(muon.momentum(), buf, 1e-14)) << "step " << t;
        const Matrix m =
            nesterov ? add(scale(grads.back(), 1.0 - o.momentum), scale(buf, o.momentum)) : buf;
        const double factor = std::sqrt(
            std::max(1.0, static_cast<double>(shape.rows) / static_cast<double>(shape.cols)));
        const Matrix u = scale(newton_schulz(m, 5, o.coefficients, o.ns_eps), factor);
        p_expected = subtract(scale(p_expected, 1.0 - o.lr * o.weight_decay), scale(u, o.lr));
        EXPECT_TRUE(matrices_near(p, p_expected, 1e-12)) << "step " << t;
        EXPECT_TRUE(matrices_near(muon.last_update(), u, 1e-12)) << "step " << t;
      }
    }
  }
}

TEST(MuonReferenceTest, WeightDecayAloneOnZeroGradient) {
  MuonOptions o;
  o.lr = 0.5;
  o.weight_decay = 0.2;
  MuonReference muon(o);
  Matrix p = from_rows({{1, -2}, {4, 8}});
  muon.step(p, zeros(2, 2));
  EXPECT_EQ(p.data, (std::vector<double>{0.9, -1.8, 3.6, 7.2}));
}

TEST(MuonReferenceTest, ShapeChangeThrows) {
  MuonReference muon(MuonOptions{});
  Matrix p = zeros(2, 3);
  muon.step(p, zeros(2, 3));
  Matrix q = zeros(3, 2);
  EXPECT_THROW(muon.step(q, zeros(3, 2)), canzona::Error);
  EXPECT_THROW(muon.step(p, zeros(3, 2)), canzona::Error);
}

}  // namespace
}  // namespace canzona::optim::reference
