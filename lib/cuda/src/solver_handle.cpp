// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// SolverHandle: cuSOLVER handle, Jacobi parameters and the info array.
#include "canzona/cuda/solver_handle.hpp"

#include "canzona/cuda/check.hpp"

#include <cstdio>
#include <utility>

namespace canzona::cuda {

SolverHandle::SolverHandle() {
  CANZONA_CUSOLVER_CHECK(cusolverDnCreate(&handle_));
  try {
    CANZONA_CUSOLVER_CHECK(cusolverDnCreateSyevjInfo(&syevj_));
  } catch (...) {
    reset();
    throw;
  }
}

SolverHandle::~SolverHandle() { reset(); }

SolverHandle::SolverHandle(SolverHandle&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      syevj_(std::exchange(other.syevj_, nullptr)),
      info_(std::move(other.info_)),
      stream_(std::exchange(other.stream_, StreamView())) {}

SolverHandle& SolverHandle::operator=(SolverHandle&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = std::exchange(other.handle_, nullptr);
    syevj_ = std::exchange(other.syevj_, nullptr);
    info_ = std::move(other.info_);
    stream_ = std::exchange(other.stream_, StreamView());
  }
  return *this;
}

void SolverHandle::bind(StreamView stream) {
  CANZONA_CUSOLVER_CHECK(cusolverDnSetStream(handle_, stream));
  stream_ = stream;
}

void SolverHandle::configure_syevj(double tolerance, int max_sweeps, bool sort_eigenvalues) {
  CANZONA_CUSOLVER_CHECK(cusolverDnXsyevjSetTolerance(syevj_, tolerance));
  CANZONA_CUSOLVER_CHECK(cusolverDnXsyevjSetMaxSweeps(syevj_, max_sweeps));
  CANZONA_CUSOLVER_CHECK(cusolverDnXsyevjSetSortEig(syevj_, sort_eigenvalues ? 1 : 0));
}

int* SolverHandle::info(std::size_t count) {
  if (info_.size() < count) {
    info_ = DeviceBuffer<int>(count);
  }
  return info_.data();
}

void SolverHandle::reset() noexcept {
  if (syevj_ != nullptr) {
    const cusolverStatus_t status = cusolverDnDestroySyevjInfo(syevj_);
    if (status != CUSOLVER_STATUS_SUCCESS) {
      std::fprintf(stderr, "canzona: warning: cusolverDnDestroySyevjInfo failed: %s\n",
                   detail::cusolver_status_name(status));
    }
    syevj_ = nullptr;
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
