// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend::eigh and ::orthonormalize on cuSOLVER: workspace carving, the column-major ↔
// row-major glue, and device-side collection of the solvers' info values (no host sync).
#include "cuda_backend.hpp"

#include "kernels.hpp"

#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>

#include <cusolverDn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace canzona::backend {
namespace {

constexpr std::size_t kAlign = 256;

std::size_t align_up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

int to_int(std::int64_t value, const char* what) {
  CANZONA_CHECK(value >= 0 && value <= std::numeric_limits<int>::max(),
                std::string(what) + " must fit in int for cuSOLVER");
  return static_cast<int>(value);
}

/// Hands out consecutive 256-byte aligned pieces of a caller's workspace.
class Carver {
 public:
  explicit Carver(void* base) : base_(static_cast<std::byte*>(base)) {}
  template <typename T>
  T* take(std::size_t count) {
    T* piece = reinterpret_cast<T*>(base_ + offset_);
    offset_ += align_up(count * sizeof(T));
    return piece;
  }

 private:
  std::byte* base_;
  std::size_t offset_ = 0;
};

constexpr cusolverEigMode_t kJobz = CUSOLVER_EIG_MODE_VECTOR;
// The matrix is symmetric, so either triangle describes it; LOWER of the column-major view is
// the upper triangle of the row-major matrix, which is the same numbers.
constexpr cublasFillMode_t kUplo = CUBLAS_FILL_MODE_LOWER;

}  // namespace

// ---- eigh -----------------------------------------------------------------------------------
// Workspace: [count info ints][lwork floats], each 256-byte aligned.

std::size_t CudaBackend::eigh_workspace_bytes(std::int64_t n, std::int64_t count) {
  if (n <= 0 || count <= 0) {
    return 0;
  }
  const int ni = to_int(n, "eigh: n");
  const cuda::DeviceGuard guard(device_);
  int lwork = 0;
  // The *_bufferSize queries only read shapes; matrix pointers may be null.
  if (use_batched_eigh(n, count)) {
    CANZONA_CUSOLVER_CHECK(cusolverDnSsyevjBatched_bufferSize(
        res_->solver.get(), kJobz, kUplo, ni, nullptr, ni, nullptr, &lwork,
        res_->solver.syevj_params(), to_int(count, "eigh: count")));
  } else {
    CANZONA_CUSOLVER_CHECK(cusolverDnSsyevd_bufferSize(res_->solver.get(), kJobz, kUplo, ni,
                                                       nullptr, ni, nullptr, &lwork));
  }
  return align_up(static_cast<std::size_t>(count) * sizeof(int)) +
         static_cast<std::size_t>(lwork) * sizeof(float);
}

void CudaBackend::eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) {
  if (n <= 0 || count <= 0) {
    return;
  }
  const int ni = to_int(n, "eigh: n");
  const cuda::DeviceGuard guard(device_);
  cusolverDnHandle_t handle = res_->solver.get();
  Carver carve(workspace);
  int* info = carve.take<int>(static_cast<std::size_t>(count));
  float* work = carve.take<float>(0);
  int lwork = 0;
  if (use_batched_eigh(n, count)) {
    // Many tiny matrices: one Jacobi launch for the whole batch (eigenvalues sorted ascending,
    // configured at construction) instead of `count` syevd calls.
    const int batch = to_int(count, "eigh: count");
    CANZONA_CUSOLVER_CHECK(cusolverDnSsyevjBatched_bufferSize(
        handle, kJobz, kUplo, ni, a, ni, w, &lwork, res_->solver.syevj_params(), batch));
    CANZONA_CUSOLVER_CHECK(cusolverDnSsyevjBatched(handle, kJobz, kUplo, ni, a, ni, w, work, lwork,
                                                   info, res_->solver.syevj_params(), batch));
  } else {
    // syevd returns eigenvalues in ascending order.
    CANZONA_CUSOLVER_CHECK(cusolverDnSsyevd_bufferSize(handle, kJobz, kUplo, ni, a, ni, w, &lwork));
    const std::int64_t per_item = n * n;
    for (std::int64_t i = 0; i < count; ++i) {
      CANZONA_CUSOLVER_CHECK(cusolverDnSsyevd(handle, kJobz, kUplo, ni, a + i * per_item, ni,
                                              w + i * n, work, lwork, info + i));
    }
  }
  // A symmetric row-major matrix is its own transpose, so cuSOLVER read it correctly; but it
  // writes eigenvector j as column j of a COLUMN-major matrix, i.e. as row j when read
  // row-major. The interface wants eigenvectors as row-major columns: transpose in place.
  detail::launch_transpose_square(a, n, count, res_->stream);
  detail::launch_accumulate_solver_info(info, count, res_->solver_status.data(), res_->stream);
}

// ---- orthonormalize -------------------------------------------------------------------------
// Workspace: [m·n floats: column-major copy][n tau][n diag(R)][2 info ints][lwork floats].

std::size_t CudaBackend::orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) {
    return 0;
  }
  CANZONA_CHECK(m >= n, "orthonormalize needs m >= n");
  const int mi = to_int(m, "orthonormalize: m");
  const int ni = to_int(n, "orthonormalize: n");
  const cuda::DeviceGuard guard(device_);
  int lwork_geqrf = 0;
  int lwork_orgqr = 0;
  CANZONA_CUSOLVER_CHECK(
      cusolverDnSgeqrf_bufferSize(res_->solver.get(), mi, ni, nullptr, mi, &lwork_geqrf));
  CANZONA_CUSOLVER_CHECK(cusolverDnSorgqr_bufferSize(res_->solver.get(), mi, ni, ni, nullptr, mi,
                                                     nullptr, &lwork_orgqr));
  const std::size_t lwork = static_cast<std::size_t>(std::max(lwork_geqrf, lwork_orgqr));
  const std::size_t un = static_cast<std::size_t>(n);
  return align_up(static_cast<std::size_t>(m) * un * sizeof(float)) +
         2 * align_up(un * sizeof(float)) + align_up(2 * sizeof(int)) + lwork * sizeof(float);
}

void CudaBackend::orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) {
  if (m <= 0 || n <= 0) {
    return;
  }
  CANZONA_CHECK(m >= n, "orthonormalize needs m >= n");
  const int mi = to_int(m, "orthonormalize: m");
  const int ni = to_int(n, "orthonormalize: n");
  const cuda::DeviceGuard guard(device_);
  cusolverDnHandle_t handle = res_->solver.get();
  cudaStream_t stream = res_->stream.get();
  Carver carve(workspace);
  float* qr = carve.take<float>(static_cast<std::size_t>(m * n));
  float* tau = carve.take<float>(static_cast<std::size_t>(n));
  float* diag = carve.take<float>(static_cast<std::size_t>(n));
  int* info = carve.take<int>(2);
  float* work = carve.take<float>(0);
  int lwork_geqrf = 0;
  int lwork_orgqr = 0;
  CANZONA_CUSOLVER_CHECK(cusolverDnSgeqrf_bufferSize(handle, mi, ni, qr, mi, &lwork_geqrf));
  CANZONA_CUSOLVER_CHECK(
      cusolverDnSorgqr_bufferSize(handle, mi, ni, ni, qr, mi, tau, &lwork_orgqr));
  const int lwork = std::max(lwork_geqrf, lwork_orgqr);

  // Row-major m×n `a` read column-major is its n×m transpose; QR needs the m×n matrix itself
  // in column-major order, which is aᵀ written row-major: an out-of-place transpose.
  detail::launch_transpose(a, m, n, nullptr, qr, stream);
  CANZONA_CUSOLVER_CHECK(cusolverDnSgeqrf(handle, mi, ni, qr, mi, tau, work, lwork, info));
  // orgqr overwrites R, so keep its diagonal: its signs decide the column flips below.
  detail::launch_copy_diagonal(qr, m, n, diag, stream);
  CANZONA_CUSOLVER_CHECK(cusolverDnSorgqr(handle, mi, ni, ni, qr, mi, tau, work, lwork, info + 1));
  // Back to row-major, negating column j of Q where R_jj < 0: Q·S and S·R with S = diag(±1)
  // give the same product and a nonnegative diagonal, the unique QR of a full-rank matrix.
  // Column j of the column-major Q is row j of `qr` read row-major (n×m), hence row signs.
  detail::launch_transpose(qr, n, m, diag, a, stream);
  detail::launch_accumulate_solver_info(info, 2, res_->solver_status.data(), stream);
}

}  // namespace canzona::backend
