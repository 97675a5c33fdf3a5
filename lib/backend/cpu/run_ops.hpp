// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cpu backend's loops over the shared functors of ops/elementwise_ops.hpp: the host side of
// the one generic launch (cuda/launch.cuh is the device side).
#pragma once

#include <cstdint>

namespace canzona::backend::cpu {

/// op(i) for i < n, in index order.
template <typename Op>
void for_each(std::int64_t n, const Op& op) {
  for (std::int64_t i = 0; i < n; ++i) op(i);
}

/// For each row < rows: value = op.row_value(row), then op(value, row, col) for col < cols.
template <typename Op>
void for_each_row(std::int64_t rows, std::int64_t cols, const Op& op) {
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto value = op.row_value(row);
    for (std::int64_t col = 0; col < cols; ++col) op(value, row, col);
  }
}

/// For each of `count` items, in order: for_each(n, make(item)), `make` giving the item's flat
/// functor (the batched form of an element-wise operation).
template <typename Make>
void for_each_item(std::int64_t count, std::int64_t n, const Make& make) {
  for (std::int64_t item = 0; item < count; ++item) for_each(n, make(item));
}

/// For each of `count` items: for_each_row(1, n, make(item)), `make` giving the item's rows
/// functor (per-item scalars at row 0).
template <typename Make>
void for_each_item_row(std::int64_t count, std::int64_t n, const Make& make) {
  for (std::int64_t item = 0; item < count; ++item) for_each_row(1, n, make(item));
}

/// For each of `count` items: for_each_row(rows, cols, make(item)), `make` giving the item's
/// rows functor over its own rows × cols grid.
template <typename Make>
void for_each_item_grid(std::int64_t count, std::int64_t rows, std::int64_t cols,
                        const Make& make) {
  for (std::int64_t item = 0; item < count; ++item) for_each_row(rows, cols, make(item));
}

}  // namespace canzona::backend::cpu
