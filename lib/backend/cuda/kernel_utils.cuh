// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Device helpers shared by the cuda backend's kernels: launch geometry for grid-stride loops,
// fp32/bf16 loads and stores, and a deterministic block reduction.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace canzona::backend::detail {

constexpr int kThreads = 256;
/// Grid-stride loops cover any n; a few blocks per SM saturate bandwidth, more only add launch
/// overhead (132 SMs on H100 × 8 = 1056).
constexpr std::int64_t kMaxBlocks = 2048;

inline unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(blocks, 1, kMaxBlocks));
}

__device__ inline std::int64_t thread_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() {
  return static_cast<std::int64_t>(blockDim.x) * gridDim.x;
}

__device__ inline float load(const float* p, std::int64_t i) { return p[i]; }
__device__ inline float load(const __nv_bfloat16* p, std::int64_t i) {
  return __bfloat162float(p[i]);
}
__device__ inline void store(float* p, std::int64_t i, float v) { p[i] = v; }
/// fp32 → bf16 rounds to nearest even, as the interface (and the cpu backend) specify.
__device__ inline void store(__nv_bfloat16* p, std::int64_t i, float v) {
  p[i] = __float2bfloat16_rn(v);
}

/// Sum of `v` over the block (blockDim.x a multiple of 32, ≤ 1024); valid in thread 0. The
/// order of additions depends only on the thread layout, so results are bitwise reproducible.
template <typename T>
__device__ T block_sum(T v) {
  __shared__ T warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffU, v, offset);
  }
  const unsigned lane = threadIdx.x % 32;
  const unsigned warp = threadIdx.x / 32;
  if (lane == 0) {
    warp_sums[warp] = v;
  }
  __syncthreads();
  const unsigned warps = blockDim.x / 32;
  v = (threadIdx.x < warps) ? warp_sums[lane] : T{0};
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffU, v, offset);
    }
  }
  __syncthreads();  // warp_sums may be reused by a following call
  return v;
}

}  // namespace canzona::backend::detail
