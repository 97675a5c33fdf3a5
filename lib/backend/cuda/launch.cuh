// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one generic launch of the cuda backend: runs a functor of ops/elementwise_ops.hpp over a
// flat range or a rows × cols grid, the device side of cpu/run_ops.hpp. Every element-wise
// operation of the backend goes through here, so the only device code of our own is this loop
// and the shared, CPU-tested functors.
#pragma once

#include <canzona/cuda/check.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace canzona::backend::cuda_launch {

inline constexpr int kThreads = 256;
/// Grid-stride loops cover any size; a few blocks per SM saturate bandwidth, more only add
/// scheduling overhead (132 SMs on H100 × 8 = 1056).
inline constexpr std::int64_t kMaxBlocks = 2048;
/// gridDim.y limit of the hardware.
inline constexpr std::int64_t kMaxGridY = 65535;

template <typename Op>
__global__ void __launch_bounds__(kThreads) for_each_kernel(std::int64_t n, Op op) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    op(i);
  }
}

/// Rows along y (one row value per row, read once per block row), columns along x.
template <typename Op>
__global__ void __launch_bounds__(kThreads)
    for_each_row_kernel(std::int64_t rows, std::int64_t cols, Op op) {
  const std::int64_t col_stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  const std::int64_t first_col = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const auto value = op.row_value(row);
    for (std::int64_t col = first_col; col < cols; col += col_stride) op(value, row, col);
  }
}

/// op(i) for i < n on `stream`; no-op for n ≤ 0. Checks the launch, never synchronises.
template <typename Op>
void for_each(std::int64_t n, const Op& op, cudaStream_t stream) {
  if (n <= 0) return;
  const std::int64_t blocks =
      std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks);
  for_each_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(n, op);
  CANZONA_CUDA_CHECK_LAUNCH();
}

/// op(row_value(row), row, col) for row < rows, col < cols on `stream`; no-op when empty.
template <typename Op>
void for_each_row(std::int64_t rows, std::int64_t cols, const Op& op, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const std::int64_t grid_y = std::min(rows, kMaxGridY);
  const std::int64_t grid_x = std::clamp<std::int64_t>(
      (cols + kThreads - 1) / kThreads, 1, std::max<std::int64_t>(1, kMaxBlocks / grid_y));
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
  for_each_row_kernel<<<grid, kThreads, 0, stream>>>(rows, cols, op);
  CANZONA_CUDA_CHECK_LAUNCH();
}

}  // namespace canzona::backend::cuda_launch
