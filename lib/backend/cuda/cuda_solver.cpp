// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend::eigh and ::orthonormalize on cuSOLVER and cuBLAS: one eigensolver for every shape
// (cusolverDnXsyevBatched; batches of small orders, larger matrices one per call so that their
// result does not depend on the batch, see ops/solver_batches.hpp),
// cuBLAS geam for the QR's column-major ↔ row-major transposes,
// cublasScopy for diag(R), workspace sizes queried once per shape, and the
// solvers' info values folded into the backend's failure counter on the device (read at the next
// synchronisation, see CudaBackend::do_synchronize).
#include "cuda_backend.hpp"
#include "solver_batches.hpp"

#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>

#include <cublas_v2.h>
#include <cusolverDn.h>
#include <library_types.h>

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
                std::string(what) + " must fit in int for cuSOLVER / cuBLAS");
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
// Workspace: [batch info ints][batch·n² floats: the solver's copy][device workspace], each
// 256-byte aligned, batch = ops::eigh_batch_size(n, count). The solver works on a copy of one
// batch so that its row-wise eigenvectors can be transposed into `a` out of place.

const CudaBackend::EighSizes& CudaBackend::eigh_sizes(std::int64_t n, std::int64_t batch) {
  for (const EighSizes& s : eigh_sizes_) {
    if (s.n == n && s.batch == batch) return s;
  }
  // First use of this shape: query once (outside the timed step when the optimizer reserved
  // its workspace, which calls eigh_workspace_bytes). cuSOLVER's default algorithm; the batch
  // sizes (ops::eigh_batch_size) are what keeps a matrix's result independent of its batch.
  EighSizes sizes{n, batch, 0, 0};
  CANZONA_CUSOLVER_CHECK(cusolverDnXsyevBatched_bufferSize(
      res_->solver.get(), res_->solver.params(), kJobz, kUplo, n, CUDA_R_32F, nullptr, n,
      CUDA_R_32F, nullptr, CUDA_R_32F, &sizes.device_bytes, &sizes.host_bytes, batch));
  if (eigh_host_workspace_.size() < sizes.host_bytes) {
    eigh_host_workspace_.resize(sizes.host_bytes);
  }
  eigh_sizes_.push_back(sizes);
  return eigh_sizes_.back();
}

std::size_t CudaBackend::do_eigh_workspace_bytes(std::int64_t n, std::int64_t count) {
  if (n <= 0 || count <= 0) return 0;
  const cuda::DeviceGuard guard(device_);
  const std::int64_t batch = ops::eigh_batch_size(n, count);
  // A count that is not a multiple of the batch ends with a smaller call, queried too.
  std::size_t device_bytes = eigh_sizes(n, batch).device_bytes;
  if (count % batch != 0) {
    device_bytes = std::max(device_bytes, eigh_sizes(n, count % batch).device_bytes);
  }
  const auto items = static_cast<std::size_t>(batch);
  return align_up(items * sizeof(int)) +
         align_up(items * static_cast<std::size_t>(n * n) * sizeof(float)) + device_bytes;
}

void CudaBackend::do_eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) {
  if (n <= 0 || count <= 0) return;
  const cuda::DeviceGuard guard(device_);
  const std::int64_t batch = ops::eigh_batch_size(n, count);
  const std::int64_t per_item = n * n;
  Carver carve(workspace);
  int* info = carve.take<int>(static_cast<std::size_t>(batch));
  float* v = carve.take<float>(static_cast<std::size_t>(batch * per_item));
  void* work = carve.take<std::byte>(0);
  for (std::int64_t first = 0; first < count; first += batch) {
    const std::int64_t items = std::min(batch, count - first);
    float* items_a = a + first * per_item;
    CANZONA_CUDA_CHECK(cudaMemcpyAsync(v, items_a,
                                       static_cast<std::size_t>(items * per_item) * sizeof(float),
                                       cudaMemcpyDeviceToDevice, stream()));
    const EighSizes sizes = eigh_sizes(n, items);  // by value: a query may grow the list
    // Eigenvalues come back in ascending order.
    CANZONA_CUSOLVER_CHECK(cusolverDnXsyevBatched(
        res_->solver.get(), res_->solver.params(), kJobz, kUplo, n, CUDA_R_32F, v, n, CUDA_R_32F,
        w + first * n, CUDA_R_32F, work, sizes.device_bytes, eigh_host_workspace_.data(),
        sizes.host_bytes, info, items));
    // cuSOLVER writes eigenvector j as column j of a COLUMN-major matrix, i.e. as row j read
    // row-major; the interface promises columns: one launch transposes every item into `a`.
    transpose_squares(v, items_a, n, items);
    count_solver_failures(info, items);
  }
}

// ---- orthonormalize -------------------------------------------------------------------------
// Workspace: [m·n floats: column-major copy][n tau][n diag(R)][2 info ints][lwork floats].

const CudaBackend::QrSizes& CudaBackend::qr_sizes(std::int64_t m, std::int64_t n) {
  for (const QrSizes& s : qr_sizes_) {
    if (s.m == m && s.n == n) return s;
  }
  const int mi = to_int(m, "orthonormalize: m");
  const int ni = to_int(n, "orthonormalize: n");
  int lwork_geqrf = 0;
  int lwork_orgqr = 0;
  CANZONA_CUSOLVER_CHECK(
      cusolverDnSgeqrf_bufferSize(res_->solver.get(), mi, ni, nullptr, mi, &lwork_geqrf));
  CANZONA_CUSOLVER_CHECK(cusolverDnSorgqr_bufferSize(res_->solver.get(), mi, ni, ni, nullptr, mi,
                                                     nullptr, &lwork_orgqr));
  qr_sizes_.push_back(QrSizes{m, n, std::max(lwork_geqrf, lwork_orgqr)});
  return qr_sizes_.back();
}

std::size_t CudaBackend::do_orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) return 0;
  CANZONA_CHECK(m >= n, "orthonormalize needs m >= n");
  const cuda::DeviceGuard guard(device_);
  const QrSizes& sizes = qr_sizes(m, n);
  const auto un = static_cast<std::size_t>(n);
  return align_up(static_cast<std::size_t>(m) * un * sizeof(float)) +
         2 * align_up(un * sizeof(float)) + align_up(2 * sizeof(int)) +
         static_cast<std::size_t>(sizes.lwork) * sizeof(float);
}

void CudaBackend::do_orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) {
  if (m <= 0 || n <= 0) return;
  CANZONA_CHECK(m >= n, "orthonormalize needs m >= n");
  const int mi = to_int(m, "orthonormalize: m");
  const int ni = to_int(n, "orthonormalize: n");
  const cuda::DeviceGuard guard(device_);
  const int lwork = qr_sizes(m, n).lwork;
  cusolverDnHandle_t solver = res_->solver.get();
  cublasHandle_t blas = res_->blas.get();
  Carver carve(workspace);
  float* qr = carve.take<float>(static_cast<std::size_t>(m * n));
  float* tau = carve.take<float>(static_cast<std::size_t>(n));
  float* diag = carve.take<float>(static_cast<std::size_t>(n));
  int* info = carve.take<int>(2);
  float* work = carve.take<float>(0);
  const float one = 1.0f;
  const float zero = 0.0f;

  // The row-major m×n `a` read column-major is its n×m transpose (ld n); QR needs the m×n matrix
  // itself column-major: qr = (that view)ᵀ. B = the same view with op(B) = Bᵀ, scaled by zero.
  CANZONA_CUBLAS_CHECK(
      cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_T, mi, ni, &one, a, ni, &zero, a, ni, qr, mi));
  CANZONA_CUSOLVER_CHECK(cusolverDnSgeqrf(solver, mi, ni, qr, mi, tau, work, lwork, info));
  // orgqr overwrites R, so keep its diagonal (stride m + 1): its signs decide the flips below.
  CANZONA_CUBLAS_CHECK(cublasScopy(blas, ni, qr, mi + 1, diag, 1));
  CANZONA_CUSOLVER_CHECK(cusolverDnSorgqr(solver, mi, ni, ni, qr, mi, tau, work, lwork, info + 1));
  // Back to row-major: the column-major n×m view of `a` is Qᵀ (B aliases C, op(B) = B, zero).
  CANZONA_CUBLAS_CHECK(
      cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, ni, mi, &one, qr, mi, &zero, a, ni, a, ni));
  // Q·S and S·R with S = diag(sign(R_jj)) give the same product and a nonnegative diagonal, the
  // unique QR of a full-rank matrix (the shared rule the cpu backend applies too).
  flip_columns_by_sign(a, m, n, diag);
  count_solver_failures(info, 2);
}

}  // namespace canzona::backend
