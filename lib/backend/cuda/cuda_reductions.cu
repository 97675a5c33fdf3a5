// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend's reductions and sorting: CUB segmented reductions for sum_squares, a CUB radix sort
// of segment-prefixed keys for argsort_descending, the shared column functor for column_dots, and
// the counters of rare events (non-finite gradient elements, failed solver calls) as the shared
// counting functor over a whole batch of items in one launch. The per-element terms and sort keys
// are the shared functors of ops/elementwise_ops.hpp. Every result is deterministic: CUB's
// segmented reductions give each segment to one block with a fixed order, column_dots sums each
// column in row order in one thread, the counters add integers, and the sort is a stable radix sort
// of fixed keys.
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

void CudaBackend::do_column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count,
                                 float* out) {
  if (n <= 0 || count <= 0) return;
  const cuda::DeviceGuard guard(device_);
  // One thread per column of the whole batch, rows summed in order: the cpu backend's bits
  // (ops::ColumnDots), in one launch whatever the count. Not cuBLAS: its 1×1 strided-batched
  // GEMMs (one item's columns at stride 1) cannot reach the next item's columns, which start
  // n² − n elements later, so a batch would take one call per item; and neighbouring threads
  // read neighbouring columns, so every row of a and b is read coalesced.
  launch::for_each(n * count, ops::ColumnDots{a, b, n, out}, stream());
}

// ---- argsort --------------------------------------------------------------------------------
// Workspace: [count·n keys][count·n sorted keys][count·n indices][CUB temporary storage], each
// 256-byte aligned; keys are 64-bit: the segment above the 32-bit sort key.
//
// All segments go through one CUB DeviceRadixSort (stable, onesweep) of segment-prefixed keys
// (ops::SegmentedDescendingSortKeys), which sorts each segment in place of a segmented sort.
// Not cub::DeviceSegmentedRadixSort: its kernel spills registers on sm_90 (a build error here,
// -warn-spills); not cub::DeviceSegmentedSort: above a few hundred segments it copies its
// partition sizes to the host and waits for them. CUB counts the items of this sort in int, so
// a batch of more than INT32_MAX values is sorted in runs of whole segments, one call each.

namespace {

constexpr std::size_t kAlign = 256;
std::size_t align_up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

/// Segments per CUB call: as many as keep a call's values within int.
std::int64_t segments_per_sort(std::int64_t n, std::int64_t count) {
  return std::min(count, std::int64_t{INT32_MAX} / n);
}

/// The key bits that differ: the 32 of the value's key and those of the largest segment index.
int key_bits(std::int64_t count) {
  int bits = 32;
  for (std::int64_t last = count - 1; last > 0; last >>= 1) ++bits;
  return bits;
}

/// CUB's stable ascending radix sort of `items` keys, carrying the indices along; with a null
/// `temp` it only sets `bytes`.
cudaError_t sort_keys(void* temp, std::size_t& bytes, const std::uint64_t* keys,
                      std::uint64_t* sorted, const int* index, int* perm, std::int64_t items,
                      int end_bit, cudaStream_t stream) {
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, sorted, index, perm,
                                         static_cast<int>(items), 0, end_bit, stream);
}

}  // namespace

std::size_t CudaBackend::do_argsort_workspace_bytes(std::int64_t n, std::int64_t count) {
  if (n <= 0 || count <= 0) return 0;
  CANZONA_CHECK(n <= std::int64_t{INT32_MAX}, "argsort_descending: n must fit in int");
  const cuda::DeviceGuard guard(device_);
  std::size_t temp = 0;
  CANZONA_CUDA_CHECK(sort_keys(nullptr, temp, nullptr, nullptr, nullptr, nullptr,
                               n * segments_per_sort(n, count), key_bits(count), stream()));
  const auto values = static_cast<std::size_t>(n * count);
  return 2 * align_up(values * sizeof(std::uint64_t)) + align_up(values * sizeof(int)) + temp;
}

void CudaBackend::do_argsort_descending(const float* values, std::int64_t n, std::int64_t count,
                                        int* perm, void* workspace) {
  if (n <= 0 || count <= 0) return;
  CANZONA_CHECK(n <= std::int64_t{INT32_MAX}, "argsort_descending: n must fit in int");
  const cuda::DeviceGuard guard(device_);
  const auto all = static_cast<std::size_t>(n * count);
  auto* base = static_cast<std::byte*>(workspace);
  auto* keys = reinterpret_cast<std::uint64_t*>(base);
  auto* sorted = reinterpret_cast<std::uint64_t*>(base + align_up(all * sizeof(std::uint64_t)));
  auto* index = reinterpret_cast<int*>(base + 2 * align_up(all * sizeof(std::uint64_t)));
  void* temp = base + 2 * align_up(all * sizeof(std::uint64_t)) + align_up(all * sizeof(int));
  // The shared keys (NaN last, −0 == +0) under their segment, indices counting from 0 in every
  // segment, then CUB's stable ascending radix sort: the same permutations as the cpu backend's
  // stable sort of each segment's keys.
  launch::for_each(n * count, ops::SegmentedDescendingSortKeys{values, keys, index, n}, stream());
  const int end_bit = key_bits(count);
  const std::int64_t per_call = segments_per_sort(n, count);
  std::size_t reserved = 0;
  CANZONA_CUDA_CHECK(sort_keys(nullptr, reserved, nullptr, nullptr, nullptr, nullptr, n * per_call,
                               end_bit, stream()));
  for (std::int64_t first = 0; first < count; first += per_call) {
    const std::int64_t items = n * std::min(per_call, count - first);
    const std::int64_t at = first * n;
    std::size_t bytes = 0;
    CANZONA_CUDA_CHECK(sort_keys(nullptr, bytes, keys + at, sorted + at, index + at, perm + at,
                                 items, end_bit, stream()));
    CANZONA_CHECK(bytes <= reserved,
                  "argsort_descending: CUB asks for more temporary storage than reserved");
    CANZONA_CUDA_CHECK(sort_keys(temp, bytes, keys + at, sorted + at, index + at, perm + at, items,
                                 end_bit, stream()));
  }
}

}  // namespace canzona::backend
