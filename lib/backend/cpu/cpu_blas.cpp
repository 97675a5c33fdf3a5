// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend::gemm: row-major cblas_sgemm per batch item. bf16 storage is widened to fp32 in the
// backend's scratch first, because Debian's OpenBLAS has no sbgemm.
#include "cpu_backend.hpp"

#include <canzona/core/error.hpp>
#include "numerics.hpp"

#include <cblas.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace canzona::backend::cpu {
namespace {

/// Rows and columns of an operand as stored (op(X) is rows×cols after the transpose).
struct Shape {
  std::int64_t rows, cols;
};

Shape stored_shape(Trans trans, std::int64_t op_rows, std::int64_t op_cols) {
  return trans == Trans::kNo ? Shape{op_rows, op_cols} : Shape{op_cols, op_rows};
}

void check_operand(const char* name, Shape shape, std::int64_t ld) {
  if (ld < std::max<std::int64_t>(1, shape.cols)) {
    throw Error(fmt::format("cpu gemm: ld{} = {} is smaller than the {} columns of {} as stored",
                            name, ld, shape.cols, name));
  }
}

CBLAS_TRANSPOSE to_cblas(Trans trans) { return trans == Trans::kNo ? CblasNoTrans : CblasTrans; }

/// Packs a bf16 rows×cols matrix with row stride `ld` into dense fp32 (row stride cols). Exact.
void widen(const std::uint16_t* src, std::int64_t ld, Shape shape, float* dst) {
  for (std::int64_t r = 0; r < shape.rows; ++r) {
    const std::uint16_t* in = src + r * ld;
    float* out = dst + r * shape.cols;
    for (std::int64_t c = 0; c < shape.cols; ++c) out[c] = ops::bf16_to_float(in[c]);
  }
}

}  // namespace

void CpuBackend::do_gemm(const GemmArgs& args) {
  const int m = to_int(args.m, "gemm m");
  const int n = to_int(args.n, "gemm n");
  const int k = to_int(args.k, "gemm k");
  check_count(args.batch, "gemm batch");
  if (m == 0 || n == 0 || args.batch == 0) return;
  const Shape a_shape = stored_shape(args.trans_a, args.m, args.k);
  const Shape b_shape = stored_shape(args.trans_b, args.k, args.n);
  check_operand("a", a_shape, args.lda);
  check_operand("b", b_shape, args.ldb);
  check_operand("c", Shape{args.m, args.n}, args.ldc);

  const bool bf16_ab = args.ab_type == ElementType::kBFloat16;
  const bool bf16_c = args.c_type == ElementType::kBFloat16;
  const std::size_t ab_size = element_size(args.ab_type);
  const std::size_t c_size = element_size(args.c_type);

  // Scratch layout for one item: widened A, widened B, fp32 C (each only when needed).
  const std::int64_t a_floats = bf16_ab ? a_shape.rows * a_shape.cols : 0;
  const std::int64_t b_floats = bf16_ab ? b_shape.rows * b_shape.cols : 0;
  const std::int64_t c_floats = bf16_c ? args.m * args.n : 0;
  float* scratch = nullptr;
  if (a_floats + b_floats + c_floats > 0) {
    scratch = scratch_.floats(static_cast<std::size_t>(a_floats + b_floats + c_floats));
  }
  float* a_wide = scratch;
  float* b_wide = scratch + a_floats;
  float* c_wide = scratch + a_floats + b_floats;

  for (std::int64_t i = 0; i < args.batch; ++i) {
    const auto* a_item = static_cast<const char*>(args.a) + i * args.stride_a * ab_size;
    const auto* b_item = static_cast<const char*>(args.b) + i * args.stride_b * ab_size;
    auto* c_item = static_cast<char*>(args.c) + i * args.stride_c * c_size;

    const float* a_ptr = reinterpret_cast<const float*>(a_item);
    const float* b_ptr = reinterpret_cast<const float*>(b_item);
    int lda = to_int(args.lda, "gemm lda");
    int ldb = to_int(args.ldb, "gemm ldb");
    if (bf16_ab) {
      // The products of two bf16 values are exact in fp32, so this matches a tensor-core bf16
      // GEMM with fp32 accumulation up to the order of summation.
      widen(reinterpret_cast<const std::uint16_t*>(a_item), args.lda, a_shape, a_wide);
      widen(reinterpret_cast<const std::uint16_t*>(b_item), args.ldb, b_shape, b_wide);
      a_ptr = a_wide;
      b_ptr = b_wide;
      lda = std::max(1, static_cast<int>(a_shape.cols));
      ldb = std::max(1, static_cast<int>(b_shape.cols));
    }

    if (!bf16_c) {
      // BLAS defines beta == 0 as "C need not be set on input": C is overwritten, not scaled,
      // so stale NaNs in C do not leak through (tested).
      cblas_sgemm(CblasRowMajor, to_cblas(args.trans_a), to_cblas(args.trans_b), m, n, k,
                  args.alpha, a_ptr, lda, b_ptr, ldb, args.beta, reinterpret_cast<float*>(c_item),
                  to_int(args.ldc, "gemm ldc"));
      continue;
    }
    // bf16 C: accumulate in fp32 and round once, as the tensor-core epilogue does. With
    // beta == 0 the old C is never read (it may hold NaN).
    auto* c_bits = reinterpret_cast<std::uint16_t*>(c_item);
    if (args.beta != 0.0f) widen(c_bits, args.ldc, Shape{args.m, args.n}, c_wide);
    cblas_sgemm(CblasRowMajor, to_cblas(args.trans_a), to_cblas(args.trans_b), m, n, k, args.alpha,
                a_ptr, lda, b_ptr, ldb, args.beta, c_wide, n);
    for (std::int64_t r = 0; r < args.m; ++r) {
      for (std::int64_t c = 0; c < args.n; ++c) {
        c_bits[r * args.ldc + c] = ops::float_to_bf16(c_wide[r * args.n + c]);
      }
    }
  }
}

}  // namespace canzona::backend::cpu
