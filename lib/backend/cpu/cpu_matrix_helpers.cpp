// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend small-matrix helpers of the preconditioners (Shampoo, SOAP): diagonal shifts,
// eigenvector column scaling, reordering by eigenvalue, and diag(aᵀb).
#include "cpu_backend.hpp"

#include <canzona/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace canzona::backend::cpu {

void CpuBackend::column_dots(const float* a, const float* b, std::int64_t n, float* out) {
  check_count(n, "column_dots n");
  // Row-outer order streams both matrices contiguously; out[j] is the fp32 accumulator.
  std::fill(out, out + n, 0.0f);
  for (std::int64_t r = 0; r < n; ++r) {
    const float* ar = a + r * n;
    const float* br = b + r * n;
    for (std::int64_t j = 0; j < n; ++j) out[j] += ar[j] * br[j];
  }
}

void CpuBackend::add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) {
  check_count(n, "add_diagonal n");
  check_count(count, "add_diagonal count");
  for (std::int64_t item = 0; item < count; ++item) {
    float* ai = a + item * n * n;
    for (std::int64_t i = 0; i < n; ++i) ai[i * n + i] += value;
  }
}

void CpuBackend::scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                                   std::int64_t count, float eps, float exponent) {
  check_count(n, "scale_columns_pow n");
  check_count(count, "scale_columns_pow count");
  // One pow per column rather than per element; the factors live in the grow-only scratch
  // because `out` may alias `q`.
  float* factor = scratch_.floats(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
  for (std::int64_t item = 0; item < count; ++item) {
    const float* wi = w + item * n;
    for (std::int64_t j = 0; j < n; ++j)
      factor[j] = std::pow(std::max(wi[j], 0.0f) + eps, exponent);
    const float* qi = q + item * n * n;
    float* oi = out + item * n * n;
    for (std::int64_t r = 0; r < n; ++r) {
      for (std::int64_t j = 0; j < n; ++j) oi[r * n + j] = qi[r * n + j] * factor[j];
    }
  }
}

void CpuBackend::reverse_columns(float* a, std::int64_t n, std::int64_t count) {
  check_count(n, "reverse_columns n");
  check_count(count, "reverse_columns count");
  for (std::int64_t row = 0; row < n * count; ++row) std::reverse(a + row * n, a + (row + 1) * n);
}

void CpuBackend::argsort_descending(const float* values, std::int64_t n, int* perm) {
  const int size = to_int(n, "argsort_descending n");
  std::iota(perm, perm + size, 0);
  // NaN is ordered after every number so the comparison stays a strict weak order (std
  // sorting with a raw `>` on NaN is undefined); the stable sort keeps ties by lower index.
  std::stable_sort(perm, perm + size, [values](int lhs, int rhs) {
    const float x = values[lhs];
    const float y = values[rhs];
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x > y;
  });
}

void CpuBackend::permute_columns(const float* a, std::int64_t rows, std::int64_t cols,
                                 const int* perm, float* out) {
  check_count(rows, "permute_columns rows");
  check_count(cols, "permute_columns cols");
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* ar = a + r * cols;
    float* orow = out + r * cols;
    for (std::int64_t j = 0; j < cols; ++j) orow[j] = ar[perm[j]];
  }
}

void CpuBackend::permute_rows(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                              float* out) {
  check_count(rows, "permute_rows rows");
  check_count(cols, "permute_rows cols");
  for (std::int64_t r = 0; r < rows; ++r) {
    std::copy(a + perm[r] * cols, a + (perm[r] + 1) * cols, out + r * cols);
  }
}

}  // namespace canzona::backend::cpu
