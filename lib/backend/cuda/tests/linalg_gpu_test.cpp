// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// GPU tests of the cuda backend's dense linear algebra against double-precision references:
// GEMM (all transposes, padded leading dimensions, batches, bf16 storage), eigh on both solver
// paths (residuals, orthonormality, ascending order, eigenvectors as columns) and orthonormalize.
#include "backend_test_util.hpp"

#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace canzona::backend::test {
namespace {

constexpr double kFp32Unit = 1.0 / (1 << 23);  // 2^-23: fp32 epsilon

struct GemmCase {
  Trans ta;
  Trans tb;
  ElementType ab;
  ElementType c;
  std::int64_t m, n, k, batch;
};

std::string describe(const GemmCase& g) {
  return std::string("ta=") + (g.ta == Trans::kYes ? "T" : "N") +
         " tb=" + (g.tb == Trans::kYes ? "T" : "N") +
         " ab=" + (g.ab == ElementType::kBFloat16 ? "bf16" : "fp32") +
         " c=" + (g.c == ElementType::kBFloat16 ? "bf16" : "fp32") + " m=" + std::to_string(g.m) +
         " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
         " batch=" + std::to_string(g.batch);
}

class CudaGemmGpu : public CudaBackendTest {
 protected:
  /// Runs one case on random data with padded leading dimensions and strides, and checks each
  /// element against a double reference with an error budget scaled by Σ|a||b| + |β||c|.
  void run_case(const GemmCase& g) {
    SCOPED_TRACE(describe(g));
    const float alpha = static_cast<float>(pick(1, 4)) * 0.5f;
    const float beta = (pick(0, 1) != 0) ? 0.75f : 0.0f;
    // Stored shapes (row-major): A is m×k or (transposed) k×m; likewise B.
    const std::int64_t a_rows = g.ta == Trans::kYes ? g.k : g.m;
    const std::int64_t a_cols = g.ta == Trans::kYes ? g.m : g.k;
    const std::int64_t b_rows = g.tb == Trans::kYes ? g.n : g.k;
    const std::int64_t b_cols = g.tb == Trans::kYes ? g.k : g.n;
    const std::int64_t lda = a_cols + pick(0, 3);
    const std::int64_t ldb = b_cols + pick(0, 3);
    const std::int64_t ldc = g.n + pick(0, 3);
    const std::int64_t stride_a = a_rows * lda + pick(0, 5);
    const std::int64_t stride_b = b_rows * ldb + pick(0, 5);
    const std::int64_t stride_c = g.m * ldc + pick(0, 5);
    const bool ab16 = g.ab == ElementType::kBFloat16;
    const bool c16 = g.c == ElementType::kBFloat16;

    // bf16 operands are drawn as bf16 values, so the reference sees exactly what the GPU sees.
    auto draw = [&](std::int64_t count, bool bf16) {
      std::vector<float> v = uniform(static_cast<std::size_t>(count));
      if (bf16) {
        std::transform(v.begin(), v.end(), v.begin(), [](float x) { return round_bf16(x); });
      }
      return v;
    };
    const std::vector<float> a = draw(stride_a * g.batch, ab16);
    const std::vector<float> b = draw(stride_b * g.batch, ab16);
    const std::vector<float> c0 = draw(stride_c * g.batch, c16);
    const std::vector<std::uint16_t> a16 = to_bf16(a);
    const std::vector<std::uint16_t> b16 = to_bf16(b);
    const std::vector<std::uint16_t> c16v = to_bf16(c0);
    Buffer da = ab16 ? put(a16) : put(a);
    Buffer db = ab16 ? put(b16) : put(b);
    Buffer dc = c16 ? put(c16v) : put(c0);

    GemmArgs args;
    args.trans_a = g.ta;
    args.trans_b = g.tb;
    args.m = g.m;
    args.n = g.n;
    args.k = g.k;
    args.alpha = alpha;
    args.a = da.data();
    args.lda = lda;
    args.b = db.data();
    args.ldb = ldb;
    args.beta = beta;
    args.c = dc.data();
    args.ldc = ldc;
    args.ab_type = g.ab;
    args.c_type = g.c;
    args.batch = g.batch;
    args.stride_a = stride_a;
    args.stride_b = stride_b;
    args.stride_c = stride_c;
    be().gemm(args);

    const std::size_t c_count = c0.size();
    const std::vector<float> got =
        c16 ? from_bf16(get<std::uint16_t>(dc, c_count)) : get<float>(dc, c_count);

    // Budget: fp32 accumulation of k exact products (bf16·bf16 is exact in fp32) errs by at
    // most ~k·2^-24·Σ|a||b|; a bf16 C adds one rounding of the result, ≤ 2^-9 relative, which
    // 2^-8·Σ|a||b| covers with a factor of 2 to spare.
    const double unit = c16 ? 1.0 / 256.0 : static_cast<double>(g.k + 2) * kFp32Unit;
    std::size_t misses = 0;
    for (std::int64_t bi = 0; bi < g.batch; ++bi) {
      for (std::int64_t i = 0; i < g.m; ++i) {
        for (std::int64_t j = 0; j < g.n; ++j) {
          double sum = 0.0;
          double mag = 0.0;
          for (std::int64_t l = 0; l < g.k; ++l) {
            const double av = g.ta == Trans::kYes ? a[bi * stride_a + l * lda + i]
                                                  : a[bi * stride_a + i * lda + l];
            const double bv = g.tb == Trans::kYes ? b[bi * stride_b + j * ldb + l]
                                                  : b[bi * stride_b + l * ldb + j];
            sum += av * bv;
            mag += std::abs(av * bv);
          }
          const std::int64_t ci = bi * stride_c + i * ldc + j;
          const double want = alpha * sum + beta * static_cast<double>(c0[ci]);
          const double scale = std::abs(alpha) * mag + std::abs(beta * c0[ci]) + 1e-30;
          if (!(std::abs(got[ci] - want) <= unit * scale) && misses++ < 5) {
            ADD_FAILURE() << "C[" << bi << "][" << i << "][" << j << "] = " << got[ci] << ", want "
                          << want << " (budget " << unit * scale << ")";
          }
        }
      }
    }
    EXPECT_EQ(misses, 0U);
    // Padding between rows and items must be untouched.
    for (std::int64_t bi = 0; bi < g.batch; ++bi) {
      for (std::int64_t i = 0; i < g.m; ++i) {
        for (std::int64_t j = g.n; j < ldc; ++j) {
          const std::int64_t ci = bi * stride_c + i * ldc + j;
          ASSERT_EQ(got[ci], c0[ci]) << "padding written at item " << bi << " row " << i;
        }
      }
    }
  }
};

TEST_F(CudaGemmGpu, AllTransposesAndTypes) {
  SCOPED_TRACE(trace());
  const std::vector<std::pair<ElementType, ElementType>> types = {
      {ElementType::kFloat32, ElementType::kFloat32},
      {ElementType::kBFloat16, ElementType::kFloat32},
      {ElementType::kBFloat16, ElementType::kBFloat16}};
  for (const auto& [ab, c] : types) {
    for (Trans ta : {Trans::kNo, Trans::kYes}) {
      for (Trans tb : {Trans::kNo, Trans::kYes}) {
        run_case({ta, tb, ab, c, pick(1, 70), pick(1, 70), pick(1, 90), 1});
      }
    }
  }
}

TEST_F(CudaGemmGpu, StridedBatched) {
  SCOPED_TRACE(trace());
  for (Trans ta : {Trans::kNo, Trans::kYes}) {
    for (Trans tb : {Trans::kNo, Trans::kYes}) {
      run_case({ta, tb, ElementType::kFloat32, ElementType::kFloat32, pick(1, 40), pick(1, 40),
                pick(1, 40), pick(2, 5)});
      run_case({ta, tb, ElementType::kBFloat16, ElementType::kBFloat16, pick(1, 40), pick(1, 40),
                pick(1, 40), pick(2, 5)});
    }
  }
}

TEST_F(CudaGemmGpu, LargerShapesUseTensorCorePaths) {
  SCOPED_TRACE(trace());
  run_case(
      {Trans::kNo, Trans::kYes, ElementType::kFloat32, ElementType::kFloat32, 256, 192, 320, 1});
  run_case(
      {Trans::kNo, Trans::kNo, ElementType::kBFloat16, ElementType::kBFloat16, 256, 256, 512, 1});
  run_case(
      {Trans::kYes, Trans::kNo, ElementType::kBFloat16, ElementType::kFloat32, 128, 320, 256, 2});
}

TEST_F(CudaGemmGpu, Fp32InputsWithBf16OutputAreRejected) {
  SCOPED_TRACE(trace());
  Buffer a = be().allocate(64);
  Buffer c = be().allocate(64);
  GemmArgs args;
  args.m = args.n = args.k = 2;
  args.a = a.data();
  args.b = a.data();
  args.c = c.data();
  args.lda = args.ldb = args.ldc = 2;
  args.ab_type = ElementType::kFloat32;
  args.c_type = ElementType::kBFloat16;
  EXPECT_THROW(be().gemm(args), Error);
}

// ---- eigh -----------------------------------------------------------------------------------

class CudaEighGpu : public CudaBackendTest {
 protected:
  /// `count` random symmetric n×n matrices, one after the other.
  std::vector<float> random_symmetric(std::int64_t n, std::int64_t count) {
    std::vector<float> a(static_cast<std::size_t>(n * n * count));
    for (std::int64_t item = 0; item < count; ++item) {
      float* m = a.data() + item * n * n;
      const std::vector<float> r = uniform(static_cast<std::size_t>(n * n));
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j <= i; ++j) {
          m[i * n + j] = m[j * n + i] = r[i * n + j];
        }
      }
    }
    return a;
  }

  struct Eigenpairs {
    std::vector<float> vectors;  ///< count·n·n, eigenvector j as column j of each item
    std::vector<float> values;   ///< count·n, ascending per item
  };
  /// The backend's eigh of `count` n×n matrices `a`, in one call.
  Eigenpairs solve(std::int64_t n, std::int64_t count, const std::vector<float>& a) {
    Buffer da = put(a);
    Buffer dw = be().allocate(static_cast<std::size_t>(n * count) * sizeof(float));
    Buffer ws = be().allocate(be().eigh_workspace_bytes(n, count));
    be().eigh(n, count, da.as<float>(), dw.as<float>(), ws.data());
    return {get<float>(da, a.size()), get<float>(dw, static_cast<std::size_t>(n * count))};
  }

  /// Random symmetric matrices; checks ascending eigenvalues, trace, orthonormal columns and the
  /// residual ‖A·v_j − w_j·v_j‖ with v_j read as COLUMN j of the row-major result (reading rows
  /// instead would leave an O(‖A‖) residual, so this pins the orientation).
  void run_case(std::int64_t n, std::int64_t count) {
    SCOPED_TRACE("n=" + std::to_string(n) + " count=" + std::to_string(count));
    const std::vector<float> a = random_symmetric(n, count);
    const Eigenpairs result = solve(n, count, a);
    const std::vector<float>& v = result.vectors;
    const std::vector<float>& w = result.values;
    ASSERT_NO_THROW(cuda().synchronize());

    for (std::int64_t item = 0; item < count; ++item) {
      SCOPED_TRACE("item " + std::to_string(item));
      const float* m = a.data() + item * n * n;
      const float* q = v.data() + item * n * n;
      const float* e = w.data() + item * n;
      double frob = 0.0;
      double trace = 0.0;
      double sum_w = 0.0;
      for (std::int64_t i = 0; i < n * n; ++i) {
        frob += static_cast<double>(m[i]) * m[i];
      }
      frob = std::sqrt(frob);
      const double tol = 64.0 * static_cast<double>(n) * kFp32Unit * std::max(frob, 1e-30);
      for (std::int64_t j = 0; j < n; ++j) {
        trace += m[j * n + j];
        sum_w += e[j];
        if (j > 0) {
          EXPECT_LE(e[j - 1], e[j]) << "eigenvalues not ascending at " << j;
        }
        double res = 0.0;
        for (std::int64_t r = 0; r < n; ++r) {
          double av = 0.0;
          for (std::int64_t l = 0; l < n; ++l) {
            av += static_cast<double>(m[r * n + l]) * q[l * n + j];
          }
          const double d = av - static_cast<double>(e[j]) * q[r * n + j];
          res += d * d;
        }
        EXPECT_LE(std::sqrt(res), tol) << "residual of eigenpair " << j;
        for (std::int64_t k = 0; k <= j; ++k) {
          double dot = 0.0;
          for (std::int64_t r = 0; r < n; ++r) {
            dot += static_cast<double>(q[r * n + j]) * q[r * n + k];
          }
          EXPECT_NEAR(dot, j == k ? 1.0 : 0.0, 64.0 * static_cast<double>(n) * kFp32Unit)
              << "columns " << j << ", " << k;
        }
      }
      EXPECT_NEAR(sum_w, trace, tol);
    }
  }
};

TEST_F(CudaEighGpu, SmallMatricesInBatches) {
  SCOPED_TRACE(trace());
  run_case(1, 3);
  run_case(7, 5);
  run_case(32, 4);
}

TEST_F(CudaEighGpu, SingleAndLargerMatrices) {
  SCOPED_TRACE(trace());
  run_case(1, 1);
  run_case(32, 1);
  run_case(64, 2);
  run_case(300, 1);
}

// A matrix's eigenpairs must not depend on the batch it is solved in (the executor groups
// same-shape matrices differently per strategy, and every strategy must match one process bit
// for bit): each item of a batch of 40 against the same matrix solved alone, bit for bit, at
// orders on both sides of ops::kBatchedEighMaxOrder (an H200 gave orders 64 and 300 other
// eigenpairs in a batch of 5 than alone while cuSOLVER batched them; 1, 7, 32, 33 agreed).
TEST_F(CudaEighGpu, ResultDoesNotDependOnTheBatch) {
  SCOPED_TRACE(trace());
  constexpr std::int64_t kCount = 40;
  for (const std::int64_t n : {1, 7, 32, 33, 64, 300}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto per_item = static_cast<std::size_t>(n * n);
    const std::vector<float> a = random_symmetric(n, kCount);
    const Eigenpairs batch = solve(n, kCount, a);
    for (std::int64_t item = 0; item < kCount; ++item) {
      SCOPED_TRACE("item " + std::to_string(item));
      const Eigenpairs alone = solve(
          n, 1, std::vector<float>(a.begin() + item * per_item, a.begin() + (item + 1) * per_item));
      EXPECT_EQ(0, std::memcmp(alone.values.data(), batch.values.data() + item * n,
                               alone.values.size() * sizeof(float)))
          << "eigenvalues differ between the batch and a batch of one";
      EXPECT_EQ(0, std::memcmp(alone.vectors.data(), batch.vectors.data() + item * per_item,
                               alone.vectors.size() * sizeof(float)))
          << "eigenvectors differ between the batch and a batch of one";
    }
  }
  ASSERT_NO_THROW(cuda().synchronize());
}

TEST_F(CudaEighGpu, KnownDiagonalMatrix) {
  SCOPED_TRACE(trace());
  // diag(3, 1, 2) as a 2-item batch: eigenvalues 1, 2, 3 and eigenvectors e1, e2, e0 as
  // columns, up to sign.
  const std::vector<float> a = {3, 0, 0, 0, 1, 0, 0, 0, 2, 3, 0, 0, 0, 1, 0, 0, 0, 2};
  Buffer da = put(a);
  Buffer dw = be().allocate(6 * sizeof(float));
  Buffer ws = be().allocate(be().eigh_workspace_bytes(3, 2));
  be().eigh(3, 2, da.as<float>(), dw.as<float>(), ws.data());
  const std::vector<float> v = get<float>(da, 18);
  const std::vector<float> w = get<float>(dw, 6);
  for (int item = 0; item < 2; ++item) {
    EXPECT_NEAR(w[item * 3 + 0], 1.0f, 1e-5f);
    EXPECT_NEAR(w[item * 3 + 1], 2.0f, 1e-5f);
    EXPECT_NEAR(w[item * 3 + 2], 3.0f, 1e-5f);
    // Column 0 (eigenvalue 1) is ±e1: a[1·3 + 0]; column 2 (eigenvalue 3) is ±e0: a[0·3 + 2].
    EXPECT_NEAR(std::abs(v[item * 9 + 1 * 3 + 0]), 1.0f, 1e-5f);
    EXPECT_NEAR(std::abs(v[item * 9 + 2 * 3 + 1]), 1.0f, 1e-5f);
    EXPECT_NEAR(std::abs(v[item * 9 + 0 * 3 + 2]), 1.0f, 1e-5f);
  }
  EXPECT_NO_THROW(cuda().synchronize());
}

// ---- orthonormalize -------------------------------------------------------------------------

class CudaOrthonormalizeGpu : public CudaBackendTest {
 protected:
  /// Q must be orthonormal, R = Qᵀ·A upper triangular with a nonnegative diagonal, and Q·R = A:
  /// together these define the thin QR of a full-rank A uniquely.
  void run_case(std::int64_t m, std::int64_t n) {
    SCOPED_TRACE("m=" + std::to_string(m) + " n=" + std::to_string(n));
    const std::vector<float> a = uniform(static_cast<std::size_t>(m * n));
    Buffer da = put(a);
    Buffer ws = be().allocate(be().orthonormalize_workspace_bytes(m, n));
    be().orthonormalize(m, n, da.as<float>(), ws.data());
    const std::vector<float> q = get<float>(da, a.size());
    ASSERT_NO_THROW(cuda().synchronize());
    const double tol = 64.0 * static_cast<double>(m) * kFp32Unit;
    double a_norm = 0.0;
    for (float x : a) {
      a_norm += static_cast<double>(x) * x;
    }
    a_norm = std::sqrt(a_norm);
    std::vector<double> r(static_cast<std::size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double qq = 0.0;
        double qa = 0.0;
        for (std::int64_t row = 0; row < m; ++row) {
          qq += static_cast<double>(q[row * n + i]) * q[row * n + j];
          qa += static_cast<double>(q[row * n + i]) * a[row * n + j];
        }
        r[i * n + j] = qa;
        EXPECT_NEAR(qq, i == j ? 1.0 : 0.0, tol) << "QᵀQ at " << i << ", " << j;
        if (i > j) {
          EXPECT_NEAR(qa, 0.0, tol * a_norm) << "R below the diagonal at " << i << ", " << j;
        }
      }
      EXPECT_GT(r[i * n + i], 0.0) << "diag(R) negative at " << i;
    }
    double recon = 0.0;
    for (std::int64_t row = 0; row < m; ++row) {
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0.0;
        for (std::int64_t i = 0; i <= j; ++i) {
          sum += q[row * n + i] * r[i * n + j];
        }
        recon += (sum - a[row * n + j]) * (sum - a[row * n + j]);
      }
    }
    EXPECT_LE(std::sqrt(recon), tol * a_norm) << "‖Q·R − A‖";
  }
};

TEST_F(CudaOrthonormalizeGpu, TallMatrices) {
  SCOPED_TRACE(trace());
  run_case(pick(100, 200), pick(20, 60));
  run_case(37, 1);
  run_case(1000, 33);
}

TEST_F(CudaOrthonormalizeGpu, SquareMatrices) {
  SCOPED_TRACE(trace());
  run_case(1, 1);
  const std::int64_t n = pick(40, 80);
  run_case(n, n);
}

}  // namespace
}  // namespace canzona::backend::test
