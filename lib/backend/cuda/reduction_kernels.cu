// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Reductions of the cuda backend. sum_squares and column_dots are deterministic (fixed
// partition, fixed summation order, no float atomics), so a norm, and with it a whole optimizer
// step, is bitwise reproducible from run to run; count_nonfinite adds integers, where atomics
// are exact.
#include "kernel_utils.cuh"
#include "kernels.hpp"

#include <canzona/cuda/check.hpp>

#include <cuda_bf16.h>

#include <algorithm>

namespace canzona::backend::detail {
namespace {

using bf16 = __nv_bfloat16;

/// Below this many elements per chunk a second pass costs more than it saves.
constexpr std::int64_t kMinChunkElements = 16384;
/// Upper bound on chunks per item (the second pass sums them with one block).
constexpr std::int64_t kMaxChunksPerItem = 1024;

/// Pass 1: block b handles chunk (b mod chunks) of item (b / chunks) and writes one partial sum.
template <typename T>
__global__ void sum_squares_partial_kernel(const T* x, std::int64_t n, std::int64_t chunks,
                                           float* partials) {
  const std::int64_t item = blockIdx.x / chunks;
  const std::int64_t chunk = blockIdx.x % chunks;
  const std::int64_t per_chunk = (n + chunks - 1) / chunks;
  const std::int64_t begin = chunk * per_chunk;
  const std::int64_t end = begin + per_chunk < n ? begin + per_chunk : n;
  const T* base = x + item * n;
  float acc = 0.0f;
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    const float v = load(base, i);
    acc += v * v;
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
  }
}

/// Pass 2: block `item` adds the `chunks` partials of its item.
__global__ void sum_partials_kernel(const float* partials, std::int64_t chunks, float* out) {
  const float* base = partials + static_cast<std::int64_t>(blockIdx.x) * chunks;
  float acc = 0.0f;
  for (std::int64_t i = threadIdx.x; i < chunks; i += blockDim.x) {
    acc += base[i];
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) {
    out[blockIdx.x] = acc;
  }
}

__global__ void count_nonfinite_kernel(const float* x, std::int64_t n, int* counter) {
  int local = 0;
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    local += isfinite(x[i]) ? 0 : 1;
  }
  local = block_sum(local);
  if (threadIdx.x == 0 && local > 0) {
    atomicAdd(counter, local);
  }
}

constexpr int kDotColumns = 32;
constexpr int kDotRowLanes = 8;

/// Block (32 columns × 8 row lanes): each lane walks every 8th row, then the 8 lane sums of a
/// column are added in lane order. Coalesced along columns and deterministic.
__global__ void column_dots_kernel(const float* a, const float* b, std::int64_t n, float* out) {
  __shared__ float lane_sums[kDotRowLanes][kDotColumns];
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * kDotColumns + threadIdx.x;
  float acc = 0.0f;
  if (j < n) {
    for (std::int64_t r = threadIdx.y; r < n; r += kDotRowLanes) {
      acc += a[r * n + j] * b[r * n + j];
    }
  }
  lane_sums[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && j < n) {
    float total = 0.0f;
    for (int lane = 0; lane < kDotRowLanes; ++lane) {
      total += lane_sums[lane][threadIdx.x];
    }
    out[j] = total;
  }
}

template <typename T>
void sum_squares_typed(const T* x, std::int64_t n, std::int64_t count, float* out, float* partials,
                       std::int64_t partials_capacity, cudaStream_t stream) {
  // The chunking depends only on (n, count), never on timing, which keeps results reproducible.
  std::int64_t chunks = std::clamp<std::int64_t>((n + kMinChunkElements - 1) / kMinChunkElements, 1,
                                                 kMaxChunksPerItem);
  chunks = std::min(chunks, std::max<std::int64_t>(partials_capacity / count, 1));
  if (chunks == 1) {
    // One block per item writes its result directly.
    sum_squares_partial_kernel<<<static_cast<unsigned>(count), kThreads, 0, stream>>>(x, n, 1, out);
    CANZONA_CUDA_CHECK_LAUNCH();
    return;
  }
  sum_squares_partial_kernel<<<static_cast<unsigned>(count * chunks), kThreads, 0, stream>>>(
      x, n, chunks, partials);
  CANZONA_CUDA_CHECK_LAUNCH();
  sum_partials_kernel<<<static_cast<unsigned>(count), kThreads, 0, stream>>>(partials, chunks, out);
  CANZONA_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                        float* out, float* partials, std::int64_t partials_capacity,
                        cudaStream_t stream) {
  if (count <= 0) {
    return;
  }
  CANZONA_CHECK(count < (std::int64_t{1} << 31), "sum_squares: too many items for one launch");
  if (n <= 0) {
    CANZONA_CUDA_CHECK(
        cudaMemsetAsync(out, 0, static_cast<std::size_t>(count) * sizeof(float), stream));
    return;
  }
  if (type == ElementType::kBFloat16) {
    sum_squares_typed(static_cast<const bf16*>(x), n, count, out, partials, partials_capacity,
                      stream);
  } else {
    sum_squares_typed(static_cast<const float*>(x), n, count, out, partials, partials_capacity,
                      stream);
  }
}

void launch_count_nonfinite(const float* x, std::int64_t n, int* counter, cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  count_nonfinite_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, n, counter);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_column_dots(const float* a, const float* b, std::int64_t n, float* out,
                        cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  const unsigned grid = static_cast<unsigned>((n + kDotColumns - 1) / kDotColumns);
  column_dots_kernel<<<grid, dim3(kDotColumns, kDotRowLanes), 0, stream>>>(a, b, n, out);
  CANZONA_CUDA_CHECK_LAUNCH();
}

}  // namespace canzona::backend::detail
