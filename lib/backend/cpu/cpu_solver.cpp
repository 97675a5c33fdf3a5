// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend::eigh (LAPACK ssyevd) and orthonormalize (LAPACK sgelqf + sorglq), with their
// workspace queries. Only the column-major *_work entry points are used: the high-level LAPACKE
// wrappers, and the row-major layout of the *_work ones, allocate inside the call.
#include "cpu_backend.hpp"
#include "run_ops.hpp"

#include <canzona/core/error.hpp>
#include "elementwise_ops.hpp"

#include <fmt/format.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace canzona::backend::cpu {
namespace {

/// Workspace sizes of one ssyevd call (jobz = 'V'), in elements.
struct EighSizes {
  lapack_int lwork, liwork;
};

// LAPACK reports workspace sizes in a float, which cannot hold every integer above 2^24: for
// ssyevd at n = 4096 the required 1 + 6n + 2n² = 33,579,009 comes back as 33,579,008 and the
// call then rejects it (info = -9). Sizes are read back rounded up to the next representable
// float and never below the documented minimum.
lapack_int workspace_from_query(float reported) {
  return static_cast<lapack_int>(std::nextafter(reported, std::numeric_limits<float>::infinity()));
}

EighSizes query_eigh(int n) {
  float work = 0.0f;
  lapack_int iwork = 0;
  float dummy = 0.0f;
  const lapack_int info = LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, &dummy, std::max(1, n),
                                              &dummy, &work, -1, &iwork, -1);
  if (info != 0) {
    throw SolverError(fmt::format("ssyevd workspace query failed for n = {}: info = {}", n, info),
                      info);
  }
  // ssyevd's documented minimum for jobz = 'V', n > 1 (LAPACK: LWORK >= 1 + 6N + 2N², LIWORK >=
  // 3 + 5N).
  const std::int64_t n64 = n;
  const std::int64_t min_lwork = n > 1 ? 1 + 6 * n64 + 2 * n64 * n64 : 1;
  if (min_lwork > std::numeric_limits<lapack_int>::max()) {
    throw ConfigError(
        fmt::format("eigh of a {0}x{0} matrix needs {1} workspace elements, more "
                    "than LAPACK's 32-bit sizes allow; lower max_precond_dim",
                    n, min_lwork));
  }
  const lapack_int min_liwork = n > 1 ? 3 + 5 * n : 1;
  return {std::max(workspace_from_query(work), static_cast<lapack_int>(min_lwork)),
          std::max(iwork, min_liwork)};
}

/// Workspace of the QR step in elements, the larger of what sgelqf and sorglq want.
lapack_int query_qr(int m, int n) {
  float work = 0.0f;
  float dummy = 0.0f;
  const int ld = std::max(1, n);
  lapack_int info = LAPACKE_sgelqf_work(LAPACK_COL_MAJOR, n, m, &dummy, ld, &dummy, &work, -1);
  if (info != 0) {
    throw SolverError(fmt::format("sgelqf workspace query failed for {}x{}: info = {}", m, n, info),
                      info);
  }
  const lapack_int gelqf = workspace_from_query(work);
  info = LAPACKE_sorglq_work(LAPACK_COL_MAJOR, n, m, n, &dummy, ld, &dummy, &work, -1);
  if (info != 0) {
    throw SolverError(fmt::format("sorglq workspace query failed for {}x{}: info = {}", m, n, info),
                      info);
  }
  return std::max({gelqf, workspace_from_query(work), lapack_int{1}});
}

std::size_t float_bytes(std::int64_t count) {
  return static_cast<std::size_t>(count) * sizeof(float);
}

}  // namespace

std::size_t CpuBackend::do_eigh_workspace_bytes(std::int64_t n, std::int64_t count) {
  check_count(count, "eigh count");
  const int size = to_int(n, "eigh n");
  if (size == 0) return 0;
  // Items are solved one after another, so one item's workspace serves the whole batch.
  const EighSizes sizes = query_eigh(size);
  return float_bytes(sizes.lwork) + static_cast<std::size_t>(sizes.liwork) * sizeof(lapack_int);
}

void CpuBackend::do_eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) {
  const int size = to_int(n, "eigh n");
  check_count(count, "eigh count");
  if (size == 0 || count == 0) return;
  const EighSizes sizes = query_eigh(size);
  auto* work = static_cast<float*>(workspace);
  auto* iwork = reinterpret_cast<lapack_int*>(work + sizes.lwork);
  for (std::int64_t i = 0; i < count; ++i) {
    float* item = a + i * n * n;
    // A symmetric row-major matrix is the same array in column-major, so LAPACK reads it as is.
    const lapack_int info = LAPACKE_ssyevd_work(LAPACK_COL_MAJOR, 'V', 'L', size, item, size,
                                                w + i * n, work, sizes.lwork, iwork, sizes.liwork);
    if (info != 0) {
      throw SolverError(
          fmt::format("ssyevd failed on item {} of {} (n = {}): info = {}{}", i, count, n, info,
                      info > 0 ? " (no convergence; is the input finite?)" : ""),
          info);
    }
    // LAPACK returns eigenvector j as column j in column-major, i.e. as ROW j of the row-major
    // array; the interface promises columns (a[r·n + j] = component r of vector j): transpose.
    for (std::int64_t r = 0; r < n; ++r) {
      for (std::int64_t c = r + 1; c < n; ++c) std::swap(item[r * n + c], item[c * n + r]);
    }
  }
}

std::size_t CpuBackend::do_orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) {
  const int rows = to_int(m, "orthonormalize m");
  const int cols = to_int(n, "orthonormalize n");
  if (cols > rows) {
    throw Error(fmt::format("cpu orthonormalize: needs m >= n, got {}x{}", m, n));
  }
  if (cols == 0) return 0;
  // tau (n) + diag(R) (n) + LAPACK work.
  return float_bytes(2 * n + query_qr(rows, cols));
}

void CpuBackend::do_orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) {
  const int rows = to_int(m, "orthonormalize m");
  const int cols = to_int(n, "orthonormalize n");
  if (cols > rows) {
    throw Error(fmt::format("cpu orthonormalize: needs m >= n, got {}x{}", m, n));
  }
  if (cols == 0) return;
  const lapack_int lwork = query_qr(rows, cols);
  auto* tau = static_cast<float*>(workspace);
  float* diag = tau + n;
  float* work = diag + n;

  // Read as column-major, the row-major m×n array is B = Aᵀ (n×m, ld n). The LQ factorisation
  // B = L·Q_lq gives A = Q_lqᵀ·Lᵀ, a QR of A with R = Lᵀ, and Q_lq (n×m column-major) is already
  // the row-major m×n Q — no transposes and no copy, unlike sgeqrf on A.
  lapack_int info = LAPACKE_sgelqf_work(LAPACK_COL_MAJOR, cols, rows, a, cols, tau, work, lwork);
  if (info != 0) {
    throw SolverError(fmt::format("sgelqf failed on {}x{}: info = {}", m, n, info), info);
  }
  // diag(R) = diag(L) sits on the diagonal of the first n×n block; sorglq overwrites it.
  for (std::int64_t j = 0; j < n; ++j) diag[j] = a[j * n + j];
  info = LAPACKE_sorglq_work(LAPACK_COL_MAJOR, cols, rows, cols, a, cols, tau, work, lwork);
  if (info != 0) {
    throw SolverError(fmt::format("sorglq failed on {}x{}: info = {}", m, n, info), info);
  }
  // Householder QR fixes column signs only up to ±1; flipping column j of Q together with row j
  // of R makes diag(R) ≥ 0, the unique factorisation for full-rank input.
  for_each_row(m, n, ops::FlipColumnsBySign{a, n, diag});
}

}  // namespace canzona::backend::cpu
