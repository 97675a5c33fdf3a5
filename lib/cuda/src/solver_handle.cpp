// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SolverHandle: cuSOLVER handle and the X-API parameter object.
#include "canzona/cuda/solver_handle.hpp"

#include "canzona/cuda/check.hpp"

#include <cstdio>
#include <utility>

namespace canzona::cuda {

SolverHandle::SolverHandle() {
  CANZONA_CUSOLVER_CHECK(cusolverDnCreate(&handle_));
  try {
    CANZONA_CUSOLVER_CHECK(cusolverDnCreateParams(&params_));
  } catch (...) {
    reset();
    throw;
  }
}

SolverHandle::~SolverHandle() { reset(); }

SolverHandle::SolverHandle(SolverHandle&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      params_(std::exchange(other.params_, nullptr)),
      stream_(std::exchange(other.stream_, StreamView())) {}

SolverHandle& SolverHandle::operator=(SolverHandle&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = std::exchange(other.handle_, nullptr);
    params_ = std::exchange(other.params_, nullptr);
    stream_ = std::exchange(other.stream_, StreamView());
  }
  return *this;
}

void SolverHandle::bind(StreamView stream) {
  CANZONA_CUSOLVER_CHECK(cusolverDnSetStream(handle_, stream));
  stream_ = stream;
}

void SolverHandle::reset() noexcept {
  if (params_ != nullptr) {
    const cusolverStatus_t status = cusolverDnDestroyParams(params_);
    if (status != CUSOLVER_STATUS_SUCCESS) {
      std::fprintf(stderr, "canzona: warning: cusolverDnDestroyParams failed: %s\n",
                   detail::cusolver_status_name(status));
    }
    params_ = nullptr;
  }
  if (handle_ != nullptr) {
    const cusolverStatus_t status = cusolverDnDestroy(handle_);
    if (status != CUSOLVER_STATUS_SUCCESS) {
      std::fprintf(stderr, "canzona: warning: cusolverDnDestroy failed: %s\n",
                   detail::cusolver_status_name(status));
    }
    handle_ = nullptr;
  }
}

}  // namespace canzona::cuda
