// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend::gemm: row-major GEMMs on column-major cuBLAS, bf16 or fp32 storage, fp32
// accumulation, strided-batched.
#include "cuda_backend.hpp"

#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>

#include <cublas_v2.h>
#include <library_types.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace canzona::backend {
namespace {

cudaDataType_t data_type(ElementType type) {
  return type == ElementType::kBFloat16 ? CUDA_R_16BF : CUDA_R_32F;
}

cublasOperation_t op(Trans trans) { return trans == Trans::kYes ? CUBLAS_OP_T : CUBLAS_OP_N; }

int to_int(std::int64_t value, const char* what) {
  CANZONA_CHECK(value >= 0 && value <= std::numeric_limits<int>::max(),
                std::string("gemm: ") + what + " must fit in int for cuBLAS");
  return static_cast<int>(value);
}

}  // namespace

void CudaBackend::do_gemm(const GemmArgs& args) {
  if (args.m == 0 || args.n == 0 || args.batch == 0) {
    return;
  }
  // cuBLAS has no fp32-input/bf16-output GEMM with fp32 compute (CUBLAS_COMPUTE_32F accepts
  // 32F·32F→32F, 16BF·16BF→16BF|32F only); no caller needs it, so reject it loudly.
  CANZONA_CHECK(!(args.ab_type == ElementType::kFloat32 && args.c_type == ElementType::kBFloat16),
                "cuda gemm: fp32 A/B with a bf16 C is not supported by cuBLAS; use a fp32 C and "
                "convert");
  const int m = to_int(args.m, "m");
  const int n = to_int(args.n, "n");
  const int k = to_int(args.k, "k");
  // cuBLAS rejects ld < 1 even when k == 0; the value is unused then.
  const int lda = std::max(to_int(args.lda, "lda"), 1);
  const int ldb = std::max(to_int(args.ldb, "ldb"), 1);
  const int ldc = to_int(args.ldc, "ldc");

  // A row-major X with row stride ld is, read column-major with the same ld, Xᵀ. So the
  // row-major C = op(A)·op(B) is the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: swap the operands and
  // m with n, and keep each operand's own transpose flag (the column-major view of a row-major
  // A is already Aᵀ, so "no transpose" on it yields op(A)ᵀ = Aᵀ).
  const cudaDataType_t ab = data_type(args.ab_type);
  const cudaDataType_t c = data_type(args.c_type);
  const cuda::DeviceGuard guard(device_);
  cublasHandle_t handle = res_->blas.get();
  // alpha/beta are host floats: the handle is in the default host pointer mode.
  if (args.batch == 1) {
    CANZONA_CUBLAS_CHECK(cublasGemmEx(handle, op(args.trans_b), op(args.trans_a), n, m, k,
                                      &args.alpha, args.b, ab, ldb, args.a, ab, lda, &args.beta,
                                      args.c, c, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  } else {
    const int batch = to_int(args.batch, "batch");
    CANZONA_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
        handle, op(args.trans_b), op(args.trans_a), n, m, k, &args.alpha, args.b, ab, ldb,
        args.stride_b, args.a, ab, lda, args.stride_a, &args.beta, args.c, c, ldc, args.stride_c,
        batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace canzona::backend
