// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CPU tests of the CUDA/cuBLAS/cuSOLVER error macros: message format and exception types. None
// of these calls needs a device or a driver.
#include <canzona/cuda/check.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

cudaError_t returns_invalid_value() { return cudaErrorInvalidValue; }

TEST(CudaCheck, FormatsNameCodeTextLocationAndExpression) {
  EXPECT_EQ(canzona::cuda::detail::format_cuda_error(cudaErrorInvalidValue, "f(x)",
                                                     "lib/cuda/src/x.cpp", 42),
            "CUDA error cudaErrorInvalidValue (1): invalid argument at lib/cuda/src/x.cpp:42 in "
            "'f(x)'");
}

TEST(CudaCheck, MacroThrowsCudaErrorWithCode) {
  try {
    CANZONA_CUDA_CHECK(returns_invalid_value());
    FAIL() << "no exception";
  } catch (const canzona::CudaError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidValue));
    const std::string what = e.what();
    EXPECT_NE(what.find("CUDA error cudaErrorInvalidValue (1): invalid argument at "),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("check_test.cpp:"), std::string::npos) << what;
    EXPECT_NE(what.find("in 'returns_invalid_value()'"), std::string::npos) << what;
  }
}

TEST(CudaCheck, MacroIsSilentOnSuccess) {
  EXPECT_NO_THROW(CANZONA_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(CANZONA_CUDA_WARN(cudaSuccess));
  // The warn macro logs and returns; it never throws.
  EXPECT_NO_THROW(CANZONA_CUDA_WARN(returns_invalid_value()));
}

TEST(CudaCheck, CublasMessageAndType) {
  EXPECT_EQ(
      canzona::cuda::detail::format_cublas_error(CUBLAS_STATUS_INVALID_VALUE, "g()", "a.cpp", 7),
      std::string("cuBLAS error CUBLAS_STATUS_INVALID_VALUE (7): ") +
          cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE) + " at a.cpp:7 in 'g()'");
  EXPECT_THROW(CANZONA_CUBLAS_CHECK(CUBLAS_STATUS_NOT_INITIALIZED), canzona::BlasError);
  EXPECT_NO_THROW(CANZONA_CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
}

TEST(CudaCheck, CusolverMessageAndType) {
  EXPECT_EQ(canzona::cuda::detail::format_cusolver_error(CUSOLVER_STATUS_INVALID_VALUE, "h()",
                                                         "b.cpp", 9),
            "cuSOLVER error CUSOLVER_STATUS_INVALID_VALUE (3) at b.cpp:9 in 'h()'");
  try {
    CANZONA_CUSOLVER_CHECK(CUSOLVER_STATUS_EXECUTION_FAILED);
    FAIL() << "no exception";
  } catch (const canzona::SolverError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(CUSOLVER_STATUS_EXECUTION_FAILED));
  }
  EXPECT_STREQ(canzona::cuda::detail::cusolver_status_name(static_cast<cusolverStatus_t>(999)),
               "CUSOLVER_STATUS_UNKNOWN");
}

}  // namespace
