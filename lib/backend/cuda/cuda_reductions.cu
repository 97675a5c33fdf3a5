// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend's reductions and sorting: CUB segmented reductions for sum_squares, a CUB radix sort
// for argsort_descending, a cuBLAS strided-batched GEMM for column_dots, and the counters of rare
// events (non-finite gradient elements, failed solver calls) as the shared counting functor over
// a whole batch of items in one launch. The per-element terms and sort keys are the shared
// functors of ops/elementwise_ops.hpp. Every result is deterministic: CUB's segmented reductions
// give each segment to one block with a fixed order, the counters add integers, and the sort is
// a stable radix sort of fixed keys.
#include "cuda_backend.hpp"
#include "launch.cuh"

#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>
#include "elementwise_ops.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include <cublas_v2.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace canzona::backend {
namespace {

namespace launch = cuda_launch;

/// Below this many elements per chunk a second pass costs more than it saves.
constexpr std::int64_t kMinChunkElements = 16384;
/// Upper bound on chunks per item (the second pass adds them in one block per item).
constexpr std::int64_t kMaxChunksPerItem = 1024;

thrust::counting_iterator<std::int64_t> indices(std::int64_t first = 0) {
  return thrust::counting_iterator<std::int64_t>(first);
}

/// First element of chunk s = item·chunks + c: item·n + min(c·per_chunk, n).
struct ChunkBegin {
  std::int64_t n;
  std::int64_t chunks;
  std::int64_t per_chunk;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const {
    const std::int64_t item = s / chunks;
    const std::int64_t at = (s - item * chunks) * per_chunk;
    return item * n + (at < n ? at : n);
  }
};

/// One past the last element of chunk s.
struct ChunkEnd {
  ChunkBegin begin;
  __host__ __device__ std::int64_t operator()(std::int64_t s) const {
    const std::int64_t item = s / begin.chunks;
    const std::int64_t at = (s - item * begin.chunks + 1) * begin.per_chunk;
    return item * begin.n + (at < begin.n ? at : begin.n);
  }
};

/// i·stride: the offsets of equally long segments.
struct Stride {
  std::int64_t stride;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * stride; }
};

}  // namespace

void CudaBackend::run_cub(const char* what, std::size_t needed,
                          const std::function<cudaError_t(void*, std::size_t&)>& call) {
  if (needed > res_->cub_temp.size()) {
    throw Error(
        fmt::format("cuda backend: {} needs {} bytes of CUB temporary storage, more than "
                    "the {} the backend reserved",
                    what, needed, res_->cub_temp.size()));
  }
  std::size_t bytes = res_->cub_temp.size();
  CANZONA_CUDA_CHECK(call(res_->cub_temp.data(), bytes));
}

void CudaBackend::count_solver_failures(const int* info, std::int64_t count) {
  launch::for_each(count, ops::CountFlags<ops::NonzeroFlag>{{info}, res_->solver_failures.data()},
                   stream());
}

void CudaBackend::do_count_nonfinite(Items<const float> x, std::int64_t n, int* counter) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item(
      x.count(), n,
      [&](std::int64_t i) {
        return ops::CountFlags<ops::NonfiniteFlag>{{x[i]}, counter};
      },
      stream());
}

template <typename T>
void CudaBackend::sum_squares_typed(const T* x, std::int64_t n, std::int64_t count, float* out) {
  const auto squares = thrust::make_transform_iterator(indices(), ops::Square<T>{x});
  // The chunking depends only on (n, count), never on timing, so results are reproducible.
  std::int64_t chunks = std::clamp<std::int64_t>((n + kMinChunkElements - 1) / kMinChunkElements, 1,
                                                 kMaxChunksPerItem);
  chunks = std::min(chunks, std::max<std::int64_t>(res_->partials.size() / count, 1));
  const std::int64_t per_chunk = (n + chunks - 1) / chunks;
  const ChunkBegin begin{n, chunks, per_chunk};
  const auto begins = thrust::make_transform_iterator(indices(), begin);
  const auto ends = thrust::make_transform_iterator(indices(), ChunkEnd{begin});
  // Pass 1: one partial per chunk (straight into `out` when an item is one chunk).
  float* partials = chunks == 1 ? out : res_->partials.data();
  std::size_t needed = 0;
  CANZONA_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, needed, squares, partials,
                                                     count * chunks, begins, ends, stream()));
  run_cub("sum_squares", needed, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, squares, partials, count * chunks, begins,
                                           ends, stream());
  });
  if (chunks == 1) return;
  // Pass 2: the chunks of each item, in chunk order.
  const auto item_begins = thrust::make_transform_iterator(indices(0), Stride{chunks});
  const auto item_ends = thrust::make_transform_iterator(indices(1), Stride{chunks});
  CANZONA_CUDA_CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, needed, partials, out, count,
                                                     item_begins, item_ends, stream()));
  run_cub("sum_squares", needed, [&](void* temp, std::size_t& bytes) {
    return cub::DeviceSegmentedReduce::Sum(temp, bytes, partials, out, count, item_begins,
                                           item_ends, stream());
  });
}

void CudaBackend::do_sum_squares(const void* x, ElementType type, std::int64_t n,
                                 std::int64_t count, float* out) {
  if (count <= 0) return;
  const cuda::DeviceGuard guard(device_);
  if (n <= 0) {
    CANZONA_CUDA_CHECK(
        cudaMemsetAsync(out, 0, static_cast<std::size_t>(count) * sizeof(float), stream()));
    return;
  }
  if (type == ElementType::kBFloat16) {
    sum_squares_typed(static_cast<const ops::bf16_bits*>(x), n, count, out);
  } else {
    sum_squares_typed(static_cast<const float*>(x), n, count, out);
  }
}

void CudaBackend::do_column_dots(const float* a, const float* b, std::int64_t n, float* out) {
  if (n <= 0) return;
  CANZONA_CHECK(n <= std::int64_t{INT32_MAX}, "column_dots: n must fit in int for cuBLAS");
  const int ni = static_cast<int>(n);
  const cuda::DeviceGuard guard(device_);
  // out[j] = Σ_r a[r·n + j]·b[r·n + j] as n 1×1 products: item j multiplies the 1×n row vector
  // that starts at a + j with stride n (column-major, lda = n) by the transpose of the same view
  // of b. Items overlap in the inputs only, which cuBLAS allows.
  const float one = 1.0f;
  const float zero = 0.0f;
  CANZONA_CUBLAS_CHECK(cublasSgemmStridedBatched(res_->blas.get(), CUBLAS_OP_N, CUBLAS_OP_T, 1, 1,
                                                 ni, &one, a, ni, 1, b, ni, 1, &zero, out, 1, 1,
                                                 ni));
}

// ---- argsort --------------------------------------------------------------------------------
// Workspace: [n keys][n sorted keys][n indices][CUB temporary storage], each 256-byte aligned.

namespace {

constexpr std::size_t kAlign = 256;
std::size_t align_up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

}  // namespace

std::size_t CudaBackend::do_argsort_workspace_bytes(std::int64_t n) {
  if (n <= 0) return 0;
  CANZONA_CHECK(n <= std::int64_t{INT32_MAX}, "argsort_descending: n must fit in int");
  const cuda::DeviceGuard guard(device_);
  std::size_t temp = 0;
  CANZONA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, temp, static_cast<const std::uint32_t*>(nullptr),
      static_cast<std::uint32_t*>(nullptr), static_cast<const int*>(nullptr),
      static_cast<int*>(nullptr), static_cast<int>(n), 0, 32, stream()));
  const auto un = static_cast<std::size_t>(n);
  return 2 * align_up(un * sizeof(std::uint32_t)) + align_up(un * sizeof(int)) + temp;
}

void CudaBackend::do_argsort_descending(const float* values, std::int64_t n, int* perm,
                                        void* workspace) {
  if (n <= 0) return;
  CANZONA_CHECK(n <= std::int64_t{INT32_MAX}, "argsort_descending: n must fit in int");
  const cuda::DeviceGuard guard(device_);
  const auto un = static_cast<std::size_t>(n);
  auto* base = static_cast<std::byte*>(workspace);
  auto* keys = reinterpret_cast<std::uint32_t*>(base);
  auto* sorted = reinterpret_cast<std::uint32_t*>(base + align_up(un * sizeof(std::uint32_t)));
  auto* index = reinterpret_cast<int*>(base + 2 * align_up(un * sizeof(std::uint32_t)));
  void* temp = base + 2 * align_up(un * sizeof(std::uint32_t)) + align_up(un * sizeof(int));
  // The shared keys (NaN last, −0 == +0), then CUB's stable ascending radix sort: the same
  // permutation as the cpu backend's stable sort of the same keys.
  launch::for_each(n, ops::DescendingSortKeys{values, keys, index}, stream());
  std::size_t bytes = 0;
  CANZONA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, sorted, index, perm,
                                                     static_cast<int>(n), 0, 32, stream()));
  CANZONA_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, keys, sorted, index, perm,
                                                     static_cast<int>(n), 0, 32, stream()));
}

}  // namespace canzona::backend
