// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Small-matrix helpers for the preconditioners (Shampoo roots, SOAP eigenbases): diagonal
// shifts, column scaling by powers of eigenvalues, column reversal, argsort and permutations.
#include "kernel_utils.cuh"
#include "kernels.hpp"

#include <canzona/cuda/check.hpp>

#include <cstdint>

namespace canzona::backend::detail {
namespace {

__global__ void add_diagonal_kernel(float* a, std::int64_t n, std::int64_t count, float value) {
  const std::int64_t total = n * count;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const std::int64_t item = i / n;
    const std::int64_t d = i % n;
    a[item * n * n + d * n + d] += value;
  }
}

__global__ void scale_columns_pow_kernel(const float* q, const float* w, float* out, std::int64_t n,
                                         std::int64_t count, float eps, float exponent) {
  const std::int64_t per_item = n * n;
  const std::int64_t total = per_item * count;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const std::int64_t item = i / per_item;
    const std::int64_t j = i % n;
    const float factor = powf(fmaxf(w[item * n + j], 0.0f) + eps, exponent);
    out[i] = q[i] * factor;
  }
}

__global__ void reverse_columns_kernel(float* a, std::int64_t n, std::int64_t count) {
  const std::int64_t half = n / 2;
  const std::int64_t total = count * n * half;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const std::int64_t row = i / half;  // global row over all items
    const std::int64_t j = i % half;
    float* r = a + row * n;
    const float left = r[j];
    r[j] = r[n - 1 - j];
    r[n - 1 - j] = left;
  }
}

/// Maps a float to an unsigned key with the same order (larger float → larger key). −0 is
/// folded onto +0 so the two compare equal (ties by index), as a float comparison would have
/// it; NaNs get a fixed place by their bit pattern (positive NaN above +inf).
__device__ inline unsigned order_key(float v) {
  if (v == 0.0f) {
    v = 0.0f;
  }
  const unsigned bits = __float_as_uint(v);
  return (bits & 0x80000000U) != 0U ? ~bits : bits | 0x80000000U;
}

/// Rank sort: element i goes to position #{j : key_j > key_i} + #{j < i : key_j == key_i}.
/// O(n²) work but no temporary storage and no allocation, deterministic, and stable (ties by
/// lower index), which suits preconditioner dimensions (n up to a few 10⁴).
__global__ void argsort_descending_kernel(const float* values, std::int64_t n, int* perm) {
  __shared__ unsigned tile[kThreads];
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned key = i < n ? order_key(values[i]) : 0U;
  std::int64_t rank = 0;
  for (std::int64_t start = 0; start < n; start += kThreads) {
    const std::int64_t j_load = start + threadIdx.x;
    tile[threadIdx.x] = j_load < n ? order_key(values[j_load]) : 0U;
    __syncthreads();
    const std::int64_t limit = n - start < kThreads ? n - start : kThreads;
    for (std::int64_t t = 0; t < limit; ++t) {
      const unsigned other = tile[t];
      rank += (other > key || (other == key && start + t < i)) ? 1 : 0;
    }
    __syncthreads();
  }
  if (i < n) {
    perm[rank] = static_cast<int>(i);
  }
}

__global__ void permute_columns_kernel(const float* a, std::int64_t rows, std::int64_t cols,
                                       const int* perm, float* out) {
  const std::int64_t total = rows * cols;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const std::int64_t r = i / cols;
    out[i] = a[r * cols + perm[i % cols]];
  }
}

__global__ void permute_rows_kernel(const float* a, std::int64_t rows, std::int64_t cols,
                                    const int* perm, float* out) {
  const std::int64_t total = rows * cols;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const std::int64_t r = i / cols;
    out[i] = a[static_cast<std::int64_t>(perm[r]) * cols + i % cols];
  }
}

}  // namespace

void launch_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value,
                         cudaStream_t stream) {
  if (n <= 0 || count <= 0) {
    return;
  }
  add_diagonal_kernel<<<grid_for(n * count), kThreads, 0, stream>>>(a, n, count, value);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                              std::int64_t count, float eps, float exponent, cudaStream_t stream) {
  if (n <= 0 || count <= 0) {
    return;
  }
  scale_columns_pow_kernel<<<grid_for(n * n * count), kThreads, 0, stream>>>(q, w, out, n, count,
                                                                             eps, exponent);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_reverse_columns(float* a, std::int64_t n, std::int64_t count, cudaStream_t stream) {
  if (n <= 1 || count <= 0) {
    return;
  }
  reverse_columns_kernel<<<grid_for(count * n * (n / 2)), kThreads, 0, stream>>>(a, n, count);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_argsort_descending(const float* values, std::int64_t n, int* perm,
                               cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  CANZONA_CHECK(n <= std::int64_t{INT32_MAX}, "argsort_descending: n must fit in int");
  // One thread per element (not grid-stride): each thread owns one rank computation.
  const unsigned grid = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  argsort_descending_kernel<<<grid, kThreads, 0, stream>>>(values, n, perm);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_permute_columns(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                            float* out, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) {
    return;
  }
  permute_columns_kernel<<<grid_for(rows * cols), kThreads, 0, stream>>>(a, rows, cols, perm, out);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_permute_rows(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                         float* out, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) {
    return;
  }
  permute_rows_kernel<<<grid_for(rows * cols), kThreads, 0, stream>>>(a, rows, cols, perm, out);
  CANZONA_CUDA_CHECK_LAUNCH();
}

}  // namespace canzona::backend::detail
