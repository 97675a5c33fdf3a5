// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Error-check macros for the CUDA runtime, cuBLAS and cuSOLVER. The macros stay thin; the
// formatting lives in out-of-line [[noreturn]] functions (check.cpp) so call sites stay small.
#pragma once

#include <canzona/core/error.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>

#include <string>

namespace canzona::cuda::detail {

/// "CUDA error cudaErrorInvalidValue (1): invalid argument at file:line in 'expr'".
/// Pure formatting: needs no device or driver, so it is testable on CPU machines.
std::string format_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
/// "cuBLAS error CUBLAS_STATUS_INVALID_VALUE (7): <cublasGetStatusString> at file:line in 'expr'".
std::string format_cublas_error(cublasStatus_t code, const char* expr, const char* file, int line);
/// "cuSOLVER error CUSOLVER_STATUS_INVALID_VALUE (3) at file:line in 'expr'" (own name table,
/// cuSOLVER has no string function).
std::string format_cusolver_error(cusolverStatus_t code, const char* expr, const char* file,
                                  int line);
/// Name of a cuSOLVER status ("CUSOLVER_STATUS_UNKNOWN_<n>" for values we do not know).
const char* cusolver_status_name(cusolverStatus_t code) noexcept;

/// Clears the thread's last (non-sticky) CUDA error, then throws canzona::CudaError.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t code, const char* expr, const char* file,
                                     int line);
[[noreturn]] void throw_cusolver_error(cusolverStatus_t code, const char* expr, const char* file,
                                       int line);
/// Logs a failed call to stderr (prefix "canzona: warning: "); never throws. For destructors.
void warn_cuda_error(cudaError_t code, const char* expr, const char* file, int line) noexcept;

}  // namespace canzona::cuda::detail

/// Throws canzona::CudaError (code = the cudaError_t) when `expr` does not return cudaSuccess.
/// The thread's last error is cleared first, so a non-sticky failure does not leak into the next
/// CANZONA_CUDA_CHECK_LAUNCH.
#define CANZONA_CUDA_CHECK(expr)                                                                  \
  do {                                                                                            \
    const cudaError_t canzona_cuda_status_ = (expr);                                              \
    if (canzona_cuda_status_ != cudaSuccess) {                                                    \
      ::canzona::cuda::detail::throw_cuda_error(canzona_cuda_status_, #expr, __FILE__, __LINE__); \
    }                                                                                             \
  } while (0)

/// Checks the last kernel launch (launch-configuration errors); call right after `<<<...>>>`.
/// Does not synchronise, so errors raised while the kernel runs surface later.
#define CANZONA_CUDA_CHECK_LAUNCH() CANZONA_CUDA_CHECK(cudaGetLastError())

/// Throws canzona::BlasError (code = the cublasStatus_t) unless `expr` returns success.
#define CANZONA_CUBLAS_CHECK(expr)                                                         \
  do {                                                                                     \
    const cublasStatus_t canzona_cublas_status_ = (expr);                                  \
    if (canzona_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                                 \
      ::canzona::cuda::detail::throw_cublas_error(canzona_cublas_status_, #expr, __FILE__, \
                                                  __LINE__);                               \
    }                                                                                      \
  } while (0)

/// Throws canzona::SolverError (code = the cusolverStatus_t) unless `expr` returns success.
#define CANZONA_CUSOLVER_CHECK(expr)                                                           \
  do {                                                                                         \
    const cusolverStatus_t canzona_cusolver_status_ = (expr);                                  \
    if (canzona_cusolver_status_ != CUSOLVER_STATUS_SUCCESS) {                                 \
      ::canzona::cuda::detail::throw_cusolver_error(canzona_cusolver_status_, #expr, __FILE__, \
                                                    __LINE__);                                 \
    }                                                                                          \
  } while (0)

/// Logs a failed CUDA call to stderr and carries on; never throws. For destructors and other
/// noexcept paths, where a throw during unwinding would terminate the process.
#define CANZONA_CUDA_WARN(expr)                                                                  \
  do {                                                                                           \
    const cudaError_t canzona_cuda_status_ = (expr);                                             \
    if (canzona_cuda_status_ != cudaSuccess) {                                                   \
      ::canzona::cuda::detail::warn_cuda_error(canzona_cuda_status_, #expr, __FILE__, __LINE__); \
    }                                                                                            \
  } while (0)
