// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// BlasHandle: cuBLAS handle lifetime, stream binding and the explicit workspace.
#include "canzona/cuda/blas_handle.hpp"

#include "canzona/cuda/check.hpp"

#include <cstdio>
#include <utility>

namespace canzona::cuda {

BlasHandle::BlasHandle(std::size_t workspace_bytes, cublasMath_t math_mode)
    : workspace_(workspace_bytes) {
  CANZONA_CUBLAS_CHECK(cublasCreate(&handle_));
  try {
    set_math_mode(math_mode);
    apply_workspace();
  } catch (...) {
    reset();
    throw;
  }
}

BlasHandle::~BlasHandle() { reset(); }

BlasHandle::BlasHandle(BlasHandle&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      workspace_(std::move(other.workspace_)),
      stream_(std::exchange(other.stream_, StreamView())) {}

BlasHandle& BlasHandle::operator=(BlasHandle&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = std::exchange(other.handle_, nullptr);
    workspace_ = std::move(other.workspace_);
    stream_ = std::exchange(other.stream_, StreamView());
  }
  return *this;
}

void BlasHandle::bind(StreamView stream) {
  CANZONA_CUBLAS_CHECK(cublasSetStream(handle_, stream));
  stream_ = stream;
  apply_workspace();
}

void BlasHandle::set_math_mode(cublasMath_t mode) {
  CANZONA_CUBLAS_CHECK(cublasSetMathMode(handle_, mode));
}

void BlasHandle::apply_workspace() {
  if (!workspace_.empty()) {
    CANZONA_CUBLAS_CHECK(cublasSetWorkspace(handle_, workspace_.data(), workspace_.size()));
  }
}

void BlasHandle::reset() noexcept {
  if (handle_ != nullptr) {
    // cublasDestroy synchronises the device internally; done once per handle, outside steps.
    const cublasStatus_t status = cublasDestroy(handle_);
    if (status != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "canzona: warning: cublasDestroy failed: %s\n",
                   cublasGetStatusName(status));
    }
    handle_ = nullptr;
  }
}

}  // namespace canzona::cuda
