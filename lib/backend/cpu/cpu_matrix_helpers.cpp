// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend small-matrix helpers of the preconditioners (Shampoo, SOAP): diagonal shifts,
// eigenvector column scaling, reordering by eigenvalue, and diag(aᵀb). The per-element rules
// are the shared functors of ops/elementwise_ops.hpp.
#include "cpu_backend.hpp"
#include "run_ops.hpp"

#include <canzona/core/error.hpp>
#include "elementwise_ops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace canzona::backend::cpu {

void CpuBackend::do_column_dots(const float* a, const float* b, std::int64_t n, float* out) {
  check_count(n, "column_dots n");
  // Row-outer order streams both matrices contiguously; out[j] is the fp32 accumulator.
  std::fill(out, out + n, 0.0f);
  for (std::int64_t r = 0; r < n; ++r) {
    const float* ar = a + r * n;
    const float* br = b + r * n;
    for (std::int64_t j = 0; j < n; ++j) out[j] += ar[j] * br[j];
  }
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

std::size_t CpuBackend::do_argsort_workspace_bytes(std::int64_t n) {
  check_count(n, "argsort_descending n");
  return static_cast<std::size_t>(n) * sizeof(std::uint32_t);
}

void CpuBackend::do_argsort_descending(const float* values, std::int64_t n, int* perm,
                                       void* workspace) {
  const int size = to_int(n, "argsort_descending n");
  // The shared keys, sorted ascending and stably: the cuda backend's radix sort of the same
  // keys gives the same permutation (ties by lower index, NaNs last).
  auto* keys = static_cast<std::uint32_t*>(workspace);
  for_each(n, ops::DescendingSortKeys{values, keys, perm});
  std::stable_sort(perm, perm + size, [keys](int lhs, int rhs) { return keys[lhs] < keys[rhs]; });
}

void CpuBackend::do_permute_columns(const float* a, std::int64_t rows, std::int64_t cols,
                                    const int* perm, float* out) {
  check_count(rows, "permute_columns rows");
  check_count(cols, "permute_columns cols");
  for_each_row(rows, cols, ops::PermuteColumns{a, cols, perm, out});
}

void CpuBackend::do_permute_rows(const float* a, std::int64_t rows, std::int64_t cols,
                                 const int* perm, float* out) {
  check_count(rows, "permute_rows rows");
  check_count(cols, "permute_rows cols");
  for_each_row(rows, cols, ops::PermuteRows{a, cols, perm, out});
}

}  // namespace canzona::backend::cpu
