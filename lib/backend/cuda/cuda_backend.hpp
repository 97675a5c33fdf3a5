// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend: the Backend interface on one GPU (internal, CUDA-facing header). Everything is
// enqueued on one non-blocking stream that the cuBLAS and cuSOLVER handles are bound to.
// Element-wise work runs the shared functors of ops/ through one generic launch
// (cuda_elementwise.cu); reductions and sorting are CUB (cuda_reductions.cu); GEMMs, transposes
// and copies cuBLAS; eigensolvers and QR cuSOLVER (cuda_gemm.cpp, cuda_solver.cpp).
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/cuda/blas_handle.hpp>
#include <canzona/cuda/buffer.hpp>
#include <canzona/cuda/solver_handle.hpp>
#include <canzona/cuda/stream.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

namespace canzona::backend {

/// The cuda backend. Every operation makes the backend's device current for its duration
/// (DeviceGuard, a no-op when the rank's device is already current, as it is after
/// cuda::use_device at start-up), so backends for different GPUs can be driven from one thread.
///
/// Numerics: element-wise operations and column_dots give the cpu backend's bits (same functors,
/// one rounding per operation); fp32 GEMMs run with CUBLAS_DEFAULT_MATH (no TF32) and agree with
/// the cpu backend to fp32 rounding; reductions are deterministic (fixed segmentation, no float
/// atomics). Solver failures: eigh and orthonormalize add their nonzero cuSOLVER infos to a counter
/// on the device; synchronize() and download(), which wait for the stream anyway, read it and throw
/// SolverError when it moved, so a failed eigensolve surfaces at the step's first host wait.
/// Construction and destruction synchronise; operations never do (except download/synchronize).

class CudaBackend final : public Backend {
 public:
  /// Creates the stream, handles and scratch on `device`. Throws ConfigError when the device
  /// does not exist, CudaError / BlasError / SolverError when the runtime fails.
  explicit CudaBackend(int device);
  ~CudaBackend() override;

  std::string_view name() const override { return "cuda"; }
  int device() const noexcept override { return device_; }

  /// The stream every operation is enqueued on (for the executor's events and NCCL calls).
  cudaStream_t stream() const noexcept { return res_->stream.get(); }

 protected:
  void release(void* data) noexcept override;

  Buffer do_allocate(std::size_t bytes) override;
  void do_upload(void* dst, const void* host, std::size_t bytes) override;
  void do_download(void* host, const void* src, std::size_t bytes) override;
  void do_synchronize() override;
  /// Waits for the backend stream, bounded by comm::collective_timeout(); `what` names the wait.
  void wait_for_stream(std::string_view what);

  void do_fill_zero(void* dst, std::size_t bytes) override;
  void do_copy(Items<void> dst, Items<const void> src, std::size_t bytes) override;
  void do_copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                  std::size_t width, std::size_t rows) override;
  void do_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                  std::int64_t n) override;

  void do_gemm(const GemmArgs& args) override;
  void do_eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) override;
  std::size_t do_eigh_workspace_bytes(std::int64_t n, std::int64_t count) override;
  void do_orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) override;
  std::size_t do_orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) override;

  void do_sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                      float* out) override;
  void do_count_nonfinite(Items<const float> x, std::int64_t n, int* counter) override;
  void do_column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count,
                      float* out) override;

  void do_muon_momentum(Items<float> buf, Items<const float> g, Items<void> out,
                        ElementType out_type, std::int64_t n, float mu, bool nesterov) override;
  void do_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                    const float* sumsq, float eps) override;
  void do_normalize_rms(Items<float> x, std::int64_t n, const float* sumsq, float eps) override;
  void do_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                float beta) override;
  void do_ema(Items<float> m, Items<const float> g, std::int64_t n, float beta) override;
  void do_ema_square(Items<float> v, Items<const float> g, std::int64_t n, float beta) override;
  void do_adam_direction(Items<const float> m, Items<const float> v, Items<float> out,
                         std::int64_t n, float bias1, float bias2, float eps) override;
  void do_divide_sqrt_eps(Items<const float> x, Items<const float> v, Items<float> out,
                          std::int64_t n, float eps) override;
  void do_apply_update(Items<float> p, Items<const void> u, ElementType u_type, std::int64_t n,
                       float lr, float wd, float scale, DecayOrder order, const float* ratio_num,
                       const float* ratio_den) override;
  void do_adamw_step(Items<float> p, Items<const float> g, Items<float> m, Items<float> v,
                     std::int64_t n, float lr, float beta1, float beta2, float eps, float wd,
                     float bias1, float bias2) override;

  void do_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) override;
  void do_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                            std::int64_t count, float eps, float exponent) override;
  void do_reverse_columns(float* a, std::int64_t n, std::int64_t count) override;
  void do_argsort_descending(const float* values, std::int64_t n, std::int64_t count, int* perm,
                             void* workspace) override;
  std::size_t do_argsort_workspace_bytes(std::int64_t n, std::int64_t count) override;
  void do_permute_columns(Items<const float> a, std::int64_t rows, std::int64_t cols,
                          const int* perm, Items<float> out) override;
  void do_permute_rows(Items<const float> a, std::int64_t rows, std::int64_t cols, const int* perm,
                       Items<float> out) override;

 private:
  /// Capacity of the sum_squares partial sums (floats): 256 KiB, allocated once.
  static constexpr std::size_t kPartialsCapacity = std::size_t{1} << 16;
  /// CUB temporary storage, allocated once: far more than any reduction here asks for (a
  /// reduction's temporary storage grows with its number of thread blocks, not with n²).
  static constexpr std::size_t kCubTempBytes = std::size_t{4} << 20;

  /// cusolverDnXsyevBatched workspace sizes of one (n, batch), queried once; batch is a call's
  /// number of matrices (ops::eigh_batch_size), not the caller's count.
  struct EighSizes {
    std::int64_t n, batch;
    std::size_t device_bytes, host_bytes;
  };
  /// geqrf / orgqr workspace (floats) of one (m, n), queried once.
  struct QrSizes {
    std::int64_t m, n;
    int lwork;
  };
  const EighSizes& eigh_sizes(std::int64_t n, std::int64_t batch);
  const QrSizes& qr_sizes(std::int64_t m, std::int64_t n);

  /// Runs a CUB algorithm in the backend's temporary storage; Error when `needed` (its size
  /// query) exceeds it.
  void run_cub(const char* what, std::size_t needed,
               const std::function<cudaError_t(void*, std::size_t&)>& call);
  /// A batch of equal-sized copies in one launch (do_copy of more than one item).
  void copy_items(Items<void> dst, Items<const void> src, std::size_t bytes);
  template <typename T>
  void sum_squares_typed(const T* x, std::int64_t n, std::int64_t count, float* out);
  /// Adds the number of nonzero entries of the device array `info` (count ints) to the
  /// backend's solver-failure counter.
  void count_solver_failures(const int* info, std::int64_t count);
  /// Transposes each of `count` contiguous n×n matrices of `in` into `out`, in one launch
  /// (cuda_elementwise.cu).
  void transpose_squares(const float* in, float* out, std::int64_t n, std::int64_t count);
  /// Negates column j of the row-major m×n `q` where diag[j] < 0 (cuda_elementwise.cu).
  void flip_columns_by_sign(float* q, std::int64_t m, std::int64_t n, const float* diag);
  /// Reads the solver-failure counter (the stream must be synchronised), resets it and throws
  /// SolverError when it is nonzero.
  void throw_on_solver_failures();

  /// Everything that lives on the device. Held by pointer so the destructor can make the
  /// device current before cuBLAS, cuSOLVER and the stream are torn down.
  struct Resources {
    cuda::Stream stream;
    cuda::BlasHandle blas;
    cuda::SolverHandle solver;
    cuda::DeviceBuffer<float> partials;
    cuda::DeviceBuffer<std::byte> cub_temp;
    /// Solver calls with a nonzero info since the last synchronisation.
    cuda::DeviceBuffer<int> solver_failures;
    /// Host mirror of solver_failures, copied with every synchronisation.
    cuda::PinnedBuffer<int> solver_failures_host;
  };

  int device_;
  std::unique_ptr<Resources> res_;
  std::vector<EighSizes> eigh_sizes_;
  std::vector<QrSizes> qr_sizes_;
  /// cusolverDnXsyevBatched's host workspace, grown when a new shape is queried.
  std::vector<std::byte> eigh_host_workspace_;
};

/// The stream every operation of a cuda backend is enqueued on, for events and NCCL calls that
/// must be ordered with the backend's work (the executor's stream ordering and event timer).
/// canzona::Error when `backend` is not a cuda backend.
cudaStream_t cuda_stream(Backend& backend);

}  // namespace canzona::backend
