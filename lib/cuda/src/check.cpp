// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Out-of-line formatters and throwers behind the CUDA, cuBLAS and cuSOLVER check macros.
#include "canzona/cuda/check.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

namespace canzona::cuda::detail {

std::string format_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  // cudaGetErrorName/String are table look-ups in the runtime; they need no driver.
  return fmt::format("CUDA error {} ({}): {} at {}:{} in '{}'", cudaGetErrorName(code),
                     static_cast<int>(code), cudaGetErrorString(code), file, line, expr);
}

std::string format_cublas_error(cublasStatus_t code, const char* expr, const char* file, int line) {
  return fmt::format("cuBLAS error {} ({}): {} at {}:{} in '{}'", cublasGetStatusName(code),
                     static_cast<int>(code), cublasGetStatusString(code), file, line, expr);
}

const char* cusolver_status_name(cusolverStatus_t code) noexcept {
  switch (code) {
    case CUSOLVER_STATUS_SUCCESS:
      return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED:
      return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED:
      return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE:
      return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH:
      return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_MAPPING_ERROR:
      return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED:
      return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR:
      return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED:
      return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_ZERO_PIVOT:
      return "CUSOLVER_STATUS_ZERO_PIVOT";
    case CUSOLVER_STATUS_INVALID_LICENSE:
      return "CUSOLVER_STATUS_INVALID_LICENSE";
    case CUSOLVER_STATUS_INVALID_WORKSPACE:
      return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default:
      return "CUSOLVER_STATUS_UNKNOWN";
  }
}

std::string format_cusolver_error(cusolverStatus_t code, const char* expr, const char* file,
                                  int line) {
  return fmt::format("cuSOLVER error {} ({}) at {}:{} in '{}'", cusolver_status_name(code),
                     static_cast<int>(code), file, line, expr);
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  // Reset the thread's last error: a non-sticky failure (bad argument, launch config) would
  // otherwise be reported again by the next CANZONA_CUDA_CHECK_LAUNCH.
  (void)cudaGetLastError();
  throw CudaError(format_cuda_error(code, expr, file, line), static_cast<int>(code));
}

void throw_cublas_error(cublasStatus_t code, const char* expr, const char* file, int line) {
  throw BlasError(format_cublas_error(code, expr, file, line), static_cast<int>(code));
}

void throw_cusolver_error(cusolverStatus_t code, const char* expr, const char* file, int line) {
  throw SolverError(format_cusolver_error(code, expr, file, line), static_cast<int>(code));
}

void warn_cuda_error(cudaError_t code, const char* expr, const char* file, int line) noexcept {
  (void)cudaGetLastError();
  try {
    const std::string message = format_cuda_error(code, expr, file, line);
    std::fprintf(stderr, "canzona: warning: %s\n", message.c_str());
  } catch (const std::exception&) {
    std::fprintf(stderr, "canzona: warning: CUDA error %d in '%s'\n", static_cast<int>(code), expr);
  }
}

}  // namespace canzona::cuda::detail
