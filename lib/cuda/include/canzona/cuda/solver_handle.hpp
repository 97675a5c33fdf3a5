// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// cuSOLVER dense handle plus the Jacobi eigensolver parameters (syevjInfo_t) used for the
// batched eigendecompositions of Shampoo and SOAP, and a device array for the solver's info.
#pragma once

#include "canzona/cuda/stream.hpp"

#include <cusolverDn.h>

#include <cstddef>

namespace canzona::cuda {

/// Owns a cusolverDnHandle_t and a syevjInfo_t on the current device. Move-only.
class SolverHandle {
 public:
  /// Creates the handle and the parameter object of the 64-bit (X) API with cuSOLVER's
  /// defaults. Throws SolverError.
  SolverHandle();
  ~SolverHandle();
  SolverHandle(SolverHandle&& other) noexcept;
  SolverHandle& operator=(SolverHandle&& other) noexcept;
  SolverHandle(const SolverHandle&) = delete;
  SolverHandle& operator=(const SolverHandle&) = delete;

  /// Routes all later calls on this handle to `stream` (cusolverDnSetStream).
  void bind(StreamView stream);

  cusolverDnHandle_t get() const noexcept { return handle_; }
  operator cusolverDnHandle_t() const noexcept { return handle_; }  // NOLINT
  /// The cusolverDnParams_t every X-API call (cusolverDnXsyevBatched, ...) takes.
  cusolverDnParams_t params() const noexcept { return params_; }
  StreamView stream() const noexcept { return stream_; }

 private:
  void reset() noexcept;

  cusolverDnHandle_t handle_ = nullptr;
  cusolverDnParams_t params_ = nullptr;
  StreamView stream_;
};

}  // namespace canzona::cuda
