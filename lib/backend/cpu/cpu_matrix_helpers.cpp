// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend small-matrix helpers of the preconditioners (Shampoo, SOAP): diagonal shifts,
// eigenvector column scaling, reordering by eigenvalue, and diag(aᵀb), each over a batch of
// items. The per-element rules are the shared functors of ops/elementwise_ops.hpp.
#include "cpu_backend.hpp"
#include "run_ops.hpp"

#include <canzona/core/error.hpp>
#include "elementwise_ops.hpp"
#include "item_ops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace canzona::backend::cpu {

void CpuBackend::do_column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count,
                                float* out) {
  check_count(n, "column_dots n");
  check_count(count, "column_dots count");
  // Row-outer order streams both matrices contiguously; out_i[j] is the fp32 accumulator. Per
  // column the same dot_steps in the same order as the cuda backend's ops::ColumnDots.
  std::fill(out, out + n * count, 0.0f);
  for_each_row(n * count, n, ops::ColumnDotsByRows{a, b, n, out});
}

void CpuBackend::do_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) {
  check_count(n, "add_diagonal n");
  check_count(count, "add_diagonal count");
  for_each_row(count, n, ops::AddDiagonal{a, n, value});
}

void CpuBackend::do_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                                      std::int64_t count, float eps, float exponent) {
  check_count(n, "scale_columns_pow n");
  check_count(count, "scale_columns_pow count");
  const int k = ops::inverse_root_order(exponent);
  if (k < 0) {
    throw Error(fmt::format(
        "cpu backend: scale_columns_pow exponent {} is not -1/2^k (k <= 8), the inverse roots "
        "the backends evaluate",
        exponent));
  }
  for_each_row(count * n, n, ops::ScaleColumnsInverseRoot{q, w, out, n, eps, k});
}

void CpuBackend::do_reverse_columns(float* a, std::int64_t n, std::int64_t count) {
  check_count(n, "reverse_columns n");
  check_count(count, "reverse_columns count");
  for_each_row(n * count, n / 2, ops::ReverseColumns{a, n});
}

std::size_t CpuBackend::do_argsort_workspace_bytes(std::int64_t n, std::int64_t count) {
  check_count(n, "argsort_descending n");
  check_count(count, "argsort_descending count");
  return static_cast<std::size_t>(n * count) * sizeof(std::uint32_t);
}

void CpuBackend::do_argsort_descending(const float* values, std::int64_t n, std::int64_t count,
                                       int* perm, void* workspace) {
  to_int(n, "argsort_descending n");
  check_count(count, "argsort_descending count");
  // The shared keys, each segment sorted ascending and stably: the cuda backend's segmented
  // radix sort of the same keys gives the same permutations (ties by lower index, NaNs last).
  auto* keys = static_cast<std::uint32_t*>(workspace);
  for_each(n * count, ops::DescendingSortKeys{values, keys, perm, n});
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint32_t* segment = keys + i * n;
    std::stable_sort(perm + i * n, perm + (i + 1) * n,
                     [segment](int lhs, int rhs) { return segment[lhs] < segment[rhs]; });
  }
}

void CpuBackend::do_permute_columns(Items<const float> a, std::int64_t rows, std::int64_t cols,
                                    const int* perm, Items<float> out) {
  check_count(rows, "permute_columns rows");
  check_count(cols, "permute_columns cols");
  for_each_item_grid(a.count(), rows, cols, ops::PermuteColumnsItems{a, cols, perm, out});
}

void CpuBackend::do_permute_rows(Items<const float> a, std::int64_t rows, std::int64_t cols,
                                 const int* perm, Items<float> out) {
  check_count(rows, "permute_rows rows");
  check_count(cols, "permute_rows cols");
  for_each_item_grid(a.count(), rows, cols, ops::PermuteRowsItems{a, rows, cols, perm, out});
}

}  // namespace canzona::backend::cpu
