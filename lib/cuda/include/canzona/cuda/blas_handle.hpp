// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// cuBLAS handle with an explicitly sized workspace and an explicit math mode, so GEMM timings
// and numerics never depend on cuBLAS' implicit defaults.
#pragma once

#include "canzona/cuda/buffer.hpp"
#include "canzona/cuda/stream.hpp"

#include <cublas_v2.h>

#include <cstddef>

namespace canzona::cuda {

/// Owns a cublasHandle_t created on the current device plus its workspace. Move-only.
class BlasHandle {
 public:
  /// 32 MiB: what cuBLAS recommends for Hopper; enough for every GEMM algorithm.
  static constexpr std::size_t kDefaultWorkspaceBytes = std::size_t{32} << 20;

  /// Creates the handle and a device workspace of `workspace_bytes` (0: cuBLAS' internal pool),
  /// and sets `math_mode` (CUBLAS_DEFAULT_MATH keeps fp32 GEMMs in fp32: TF32 stays off).
  /// Throws BlasError / CudaError.
  explicit BlasHandle(std::size_t workspace_bytes = kDefaultWorkspaceBytes,
                      cublasMath_t math_mode = CUBLAS_DEFAULT_MATH);
  ~BlasHandle();
  BlasHandle(BlasHandle&& other) noexcept;
  BlasHandle& operator=(BlasHandle&& other) noexcept;
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;

  /// Routes all later calls on this handle to `stream` (cublasSetStream). cublasSetStream resets
  /// the workspace to cuBLAS' default pool, so our workspace is set again right after.
  void bind(StreamView stream);
  /// Sets the math mode (e.g. CUBLAS_TF32_TENSOR_OP_MATH); equivalence tests keep the default.
  void set_math_mode(cublasMath_t mode);

  cublasHandle_t get() const noexcept { return handle_; }
  operator cublasHandle_t() const noexcept { return handle_; }  // NOLINT
  StreamView stream() const noexcept { return stream_; }
  std::size_t workspace_bytes() const noexcept { return workspace_.size(); }

 private:
  void apply_workspace();
  void reset() noexcept;

  cublasHandle_t handle_ = nullptr;
  DeviceBuffer<std::byte> workspace_;
  StreamView stream_;
};

}  // namespace canzona::cuda
