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

// The functor is a __grid_constant__ parameter: read in place from the parameter space, never
// copied to local memory, even where a reference to it (or to an item inside it) is taken.
template <typename Op>
__global__ void __launch_bounds__(kThreads)
    for_each_kernel(std::int64_t n, const __grid_constant__ Op op) {
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    op(i);
  }
}

/// Rows along y (one row value per row, read once per block row), columns along x.
template <typename Op>
__global__ void __launch_bounds__(kThreads)
    for_each_row_kernel(std::int64_t rows, std::int64_t cols, const __grid_constant__ Op op) {
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

// ---- batches of items ------------------------------------------------------------------------
// A batched operation gives every item its own flat functor (the item's pointers baked in).
// The functors of up to kItemsPerLaunch items travel by value in the kernel's parameters, so a
// batch needs no device-side pointer table, no host-to-device copy and no synchronisation: one
// launch per kItemsPerLaunch items, item = row of the grid.

inline constexpr int kItemsPerLaunch = 32;

/// Rows functor over the items of one launch: row = item, each element runs the item's functor.
template <typename Op>
struct ItemOps {
  Op ops[kItemsPerLaunch];
  __device__ const Op& row_value(std::int64_t item) const { return ops[item]; }
  __device__ void operator()(const Op& op, std::int64_t /*item*/, std::int64_t i) const { op(i); }
};

/// An item's functor and its per-item scalar.
template <typename Op, typename Value>
struct ItemRow {
  const Op* op;
  Value value;
};

/// The same for items whose functors are rows functors themselves (a per-item scalar at row 0).
template <typename Op>
struct ItemRowOps {
  Op ops[kItemsPerLaunch];
  __device__ auto row_value(std::int64_t item) const {
    using Value = decltype(ops[item].row_value(0));
    return ItemRow<Op, Value>{&ops[item], ops[item].row_value(0)};
  }
  template <typename Row>
  __device__ void operator()(const Row& row, std::int64_t /*item*/, std::int64_t i) const {
    (*row.op)(row.value, 0, i);
  }
};

/// An item's rows functor, one of its rows and that row's value.
template <typename Op, typename Value>
struct ItemGridRow {
  const Op* op;
  Value value;
  std::int64_t row;
};

/// The same for items whose rows functors each cover their own `rows` × cols grid: grid row
/// item·rows + r is row r of the item's functor (its row value read once per grid row).
template <typename Op>
struct ItemGridOps {
  Op ops[kItemsPerLaunch];
  std::int64_t rows;
  __device__ auto row_value(std::int64_t grid_row) const {
    const std::int64_t item = grid_row / rows;
    const std::int64_t r = grid_row - item * rows;
    using Value = decltype(ops[item].row_value(r));
    return ItemGridRow<Op, Value>{&ops[item], ops[item].row_value(r), r};
  }
  template <typename Row>
  __device__ void operator()(const Row& row, std::int64_t /*grid_row*/, std::int64_t col) const {
    (*row.op)(row.value, row.row, col);
  }
};

/// Runs a batch of per-item functors, kItemsPerLaunch per launch: launch(batch, items) is
/// called with `items` functors filled in.
template <template <typename> class Batch, typename Make, typename Launch>
void launch_item_batches(std::int64_t count, const Make& make, const Launch& launch) {
  using Op = decltype(make(std::int64_t{0}));
  static_assert(sizeof(Batch<Op>) <= 4000,
                "a launch's item functors must fit the kernel parameters");
  for (std::int64_t first = 0; first < count; first += kItemsPerLaunch) {
    const std::int64_t items = std::min<std::int64_t>(kItemsPerLaunch, count - first);
    Batch<Op> batch{};
    for (std::int64_t i = 0; i < items; ++i) batch.ops[i] = make(first + i);
    launch(batch, items);
  }
}

template <template <typename> class Batch, typename Make>
void launch_items(std::int64_t count, std::int64_t n, const Make& make, cudaStream_t stream) {
  launch_item_batches<Batch>(count, make, [&](const auto& batch, std::int64_t items) {
    for_each_row(items, n, batch, stream);
  });
}

/// make(item) gives item's flat functor; each runs over n elements.
template <typename Make>
void for_each_item(std::int64_t count, std::int64_t n, const Make& make, cudaStream_t stream) {
  launch_items<ItemOps>(count, n, make, stream);
}

/// make(item) gives item's rows functor (its per-item scalar at row 0); each runs over n.
template <typename Make>
void for_each_item_row(std::int64_t count, std::int64_t n, const Make& make, cudaStream_t stream) {
  launch_items<ItemRowOps>(count, n, make, stream);
}

/// make(item) gives item's rows functor over its own rows × cols grid (the batched form of a
/// rows operation such as a permutation): one launch per kItemsPerLaunch items.
template <typename Make>
void for_each_item_grid(std::int64_t count, std::int64_t rows, std::int64_t cols, const Make& make,
                        cudaStream_t stream) {
  if (rows <= 0) return;
  launch_item_batches<ItemGridOps>(count, make, [&](auto& batch, std::int64_t items) {
    batch.rows = rows;
    for_each_row(items * rows, cols, batch, stream);
  });
}

}  // namespace canzona::backend::cuda_launch
