// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// cuSOLVER dense handle plus the Jacobi eigensolver parameters (syevjInfo_t) used for the
// batched eigendecompositions of Shampoo and SOAP, and a device array for the solver's info.
#pragma once

#include "canzona/cuda/buffer.hpp"
#include "canzona/cuda/stream.hpp"

#include <cusolverDn.h>

#include <cstddef>

namespace canzona::cuda {

/// Owns a cusolverDnHandle_t and a syevjInfo_t on the current device. Move-only.
class SolverHandle {
 public:
  /// Creates the handle and Jacobi parameters with cuSOLVER's defaults. Throws SolverError.
  SolverHandle();
  ~SolverHandle();
  SolverHandle(SolverHandle&& other) noexcept;
  SolverHandle& operator=(SolverHandle&& other) noexcept;
  SolverHandle(const SolverHandle&) = delete;
  SolverHandle& operator=(const SolverHandle&) = delete;

  /// Routes all later calls on this handle to `stream` (cusolverDnSetStream).
  void bind(StreamView stream);
  /// Jacobi tolerance, sweep limit and eigenvalue sorting for syevj / syevjBatched.
  void configure_syevj(double tolerance, int max_sweeps, bool sort_eigenvalues);
  /// A device array of at least `count` ints for the solvers' `info` output, grown on demand
  /// (cudaMalloc, so call it outside timed regions). Valid until the next larger request.
  int* info(std::size_t count);

  cusolverDnHandle_t get() const noexcept { return handle_; }
  operator cusolverDnHandle_t() const noexcept { return handle_; }  // NOLINT
  syevjInfo_t syevj_params() const noexcept { return syevj_; }
  StreamView stream() const noexcept { return stream_; }

 private:
  void reset() noexcept;

  cusolverDnHandle_t handle_ = nullptr;
  syevjInfo_t syevj_ = nullptr;
  DeviceBuffer<int> info_;
  StreamView stream_;
};

}  // namespace canzona::cuda
