// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Layout glue around cuSOLVER, which is column-major while the backend is row-major: transposes
// (optionally flipping signs on the way), the diagonal of R, and the device-side info fold.
#include "kernel_utils.cuh"
#include "kernels.hpp"

#include <canzona/cuda/check.hpp>

#include <cstdint>

namespace canzona::backend::detail {
namespace {

constexpr int kTile = 32;
constexpr int kTileRows = 8;

__global__ void transpose_square_kernel(float* a, std::int64_t n, std::int64_t count) {
  const std::int64_t per_item = n * n;
  const std::int64_t total = per_item * count;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const std::int64_t within = i % per_item;
    const std::int64_t r = within / n;
    const std::int64_t c = within % n;
    if (r < c) {  // each unordered pair is swapped by exactly one thread
      float* base = a + (i - within);
      const float upper = base[r * n + c];
      base[r * n + c] = base[c * n + r];
      base[c * n + r] = upper;
    }
  }
}

/// Shared-memory tiled transpose, so both the read and the write are coalesced; the +1 column
/// of padding avoids shared-memory bank conflicts on the transposed read.
__global__ void transpose_kernel(const float* src, std::int64_t rows, std::int64_t cols,
                                 const float* row_signs, float* dst) {
  __shared__ float tile[kTile][kTile + 1];
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.y) * kTile;
  const std::int64_t c0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  for (int k = threadIdx.y; k < kTile; k += kTileRows) {
    const std::int64_t r = r0 + k;
    const std::int64_t c = c0 + threadIdx.x;
    if (r < rows && c < cols) {
      float v = src[r * cols + c];
      if (row_signs != nullptr && row_signs[r] < 0.0f) {
        v = -v;
      }
      tile[k][threadIdx.x] = v;
    }
  }
  __syncthreads();
  for (int k = threadIdx.y; k < kTile; k += kTileRows) {
    const std::int64_t c = c0 + k;
    const std::int64_t r = r0 + threadIdx.x;
    if (r < rows && c < cols) {
      dst[c * rows + r] = tile[threadIdx.x][k];
    }
  }
}

__global__ void copy_diagonal_kernel(const float* a, std::int64_t ld, std::int64_t n, float* diag) {
  for (std::int64_t j = thread_index(); j < n; j += grid_stride()) {
    diag[j] = a[j + j * ld];
  }
}

__global__ void accumulate_solver_info_kernel(const int* info, std::int64_t count, int* status) {
  for (std::int64_t i = thread_index(); i < count; i += grid_stride()) {
    const int value = info[i];
    if (value != 0) {
      atomicAdd(&status[0], 1);
      status[1] = value;  // any one failing value is enough to report
    }
  }
}

}  // namespace

void launch_transpose_square(float* a, std::int64_t n, std::int64_t count, cudaStream_t stream) {
  if (n <= 1 || count <= 0) {
    return;
  }
  transpose_square_kernel<<<grid_for(n * n * count), kThreads, 0, stream>>>(a, n, count);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_transpose(const float* src, std::int64_t rows, std::int64_t cols,
                      const float* row_signs, float* dst, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) {
    return;
  }
  const std::int64_t tiles_r = (rows + kTile - 1) / kTile;
  const std::int64_t tiles_c = (cols + kTile - 1) / kTile;
  CANZONA_CHECK(tiles_r <= 65535 && tiles_c < (std::int64_t{1} << 31),
                "transpose: matrix too large for one launch");
  const dim3 grid(static_cast<unsigned>(tiles_c), static_cast<unsigned>(tiles_r));
  transpose_kernel<<<grid, dim3(kTile, kTileRows), 0, stream>>>(src, rows, cols, row_signs, dst);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_copy_diagonal(const float* a, std::int64_t ld, std::int64_t n, float* diag,
                          cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  copy_diagonal_kernel<<<grid_for(n), kThreads, 0, stream>>>(a, ld, n, diag);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_accumulate_solver_info(const int* info, std::int64_t count, int* status,
                                   cudaStream_t stream) {
  if (count <= 0) {
    return;
  }
  accumulate_solver_info_kernel<<<grid_for(count), kThreads, 0, stream>>>(info, count, status);
  CANZONA_CUDA_CHECK_LAUNCH();
}

}  // namespace canzona::backend::detail
