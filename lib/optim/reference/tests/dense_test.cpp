// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The dense helpers on hand-computed values, including the shape checks and NaN visibility.
#include <canzona/core/error.hpp>
#include <canzona/optim/reference/dense.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace canzona::optim::reference {
namespace {

TEST(DenseReferenceTest, MatmulAndTransposeMatchHandValues) {
  const Matrix a = from_rows({{1, 2, 3}, {4, 5, 6}});
  const Matrix b = from_rows({{7, 8}, {9, 10}, {11, 12}});
  const Matrix c = matmul(a, b);
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.cols, 2);
  EXPECT_EQ(c.data, (std::vector<double>{58, 64, 139, 154}));
  const Matrix at = transpose(a);
  EXPECT_EQ(at.rows, 3);
  EXPECT_EQ(at.data, (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(matmul(identity(2), a).data, a.data);
}

TEST(DenseReferenceTest, ElementwiseOpsMatchHandValues) {
  const Matrix a = from_rows({{1, -2}, {3, 4}});
  const Matrix b = from_rows({{2, 2}, {-1, 8}});
  EXPECT_EQ(add(a, b).data, (std::vector<double>{3, 0, 2, 12}));
  EXPECT_EQ(subtract(a, b).data, (std::vector<double>{-1, -4, 4, -4}));
  EXPECT_EQ(hadamard(a, b).data, (std::vector<double>{2, -4, -3, 32}));
  EXPECT_EQ(divide(a, b).data, (std::vector<double>{0.5, -1, -3, 0.5}));
  EXPECT_EQ(axpby(2.0, a, -1.0, b).data, (std::vector<double>{0, -6, 7, 0}));
  EXPECT_EQ(square(a).data, (std::vector<double>{1, 4, 9, 16}));
  EXPECT_EQ(sqrt(square(b)).data, (std::vector<double>{2, 2, 1, 8}));
  EXPECT_EQ(add_scalar(a, 1.0).data, (std::vector<double>{2, -1, 4, 5}));
  EXPECT_EQ(scale(a, -0.5).data, (std::vector<double>{-0.5, 1, -1.5, -2}));
}

TEST(DenseReferenceTest, NormsMatchHandValues) {
  EXPECT_DOUBLE_EQ(frobenius_norm(from_rows({{3, 4}})), 5.0);
  EXPECT_DOUBLE_EQ(frobenius_norm(from_rows({{3e-200, 4e-200}})), 5e-200);  // no underflow
  EXPECT_DOUBLE_EQ(frobenius_norm(from_rows({{3e200, 4e200}})), 5e200);     // no overflow
  EXPECT_EQ(frobenius_norm(zeros(2, 3)), 0.0);
  EXPECT_DOUBLE_EQ(rms(from_rows({{1, -1}, {1, -1}})), 1.0);
  EXPECT_EQ(max_abs(from_rows({{1, -7}, {3, 2}})), 7.0);
  EXPECT_EQ(max_abs_diff(from_rows({{1, 2}}), from_rows({{1.5, -1}})), 3.0);
}

TEST(DenseReferenceTest, NanStaysVisible) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Matrix a = from_rows({{1, nan, 2}});
  EXPECT_TRUE(std::isnan(max_abs(a)));
  EXPECT_TRUE(std::isnan(frobenius_norm(a)));
  EXPECT_TRUE(std::isnan(max_abs_diff(a, zeros(1, 3))));
}

TEST(DenseReferenceTest, ConstructorsKeepRowMajorOrder) {
  const std::vector<float> f = {1.5F, -2.25F, 3.0F, 0.125F, 5.0F, 6.0F};
  const Matrix m = from_floats(2, 3, f);
  EXPECT_EQ(m(0, 1), -2.25);
  EXPECT_EQ(m(1, 0), 0.125);
  EXPECT_EQ(to_floats(m), f);
  const std::vector<double> d = {1, 2, 3};
  EXPECT_EQ(diagonal(d)(2, 2), 3.0);
  EXPECT_EQ(diagonal(d)(0, 2), 0.0);
  EXPECT_EQ(random_normal(3, 4, 7).data, random_normal(3, 4, 7).data);
  EXPECT_NE(random_normal(3, 4, 7).data, random_normal(3, 4, 8).data);
}

TEST(DenseReferenceTest, ShapeMismatchThrows) {
  EXPECT_THROW(matmul(zeros(2, 3), zeros(2, 3)), canzona::Error);
  EXPECT_THROW(add(zeros(2, 3), zeros(3, 2)), canzona::Error);
  EXPECT_THROW(from_floats(2, 2, std::vector<float>(3)), canzona::Error);
  EXPECT_THROW(from_rows({{1, 2}, {3}}), canzona::Error);
  EXPECT_THROW(zeros(-1, 2), canzona::Error);
}

}  // namespace
}  // namespace canzona::optim::reference
