// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend: the Backend interface on one GPU (internal, CUDA-facing header). Everything is
// enqueued on one non-blocking stream that the cuBLAS and cuSOLVER handles are bound to.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/cuda/blas_handle.hpp>
#include <canzona/cuda/buffer.hpp>
#include <canzona/cuda/solver_handle.hpp>
#include <canzona/cuda/stream.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace canzona::backend {

/// The cuda backend. Every operation makes the backend's device current for its duration
/// (DeviceGuard), so backends for different GPUs can be driven from one host thread.
///
/// Numerics: fp32 GEMMs run with CUBLAS_DEFAULT_MATH (no TF32), so they agree with the cpu
/// backend to fp32 rounding; reductions are deterministic (see reduction_kernels.cu).
/// Construction and destruction synchronise; operations never do (except download/synchronize).
class CudaBackend final : public Backend {
 public:
  /// Creates the stream, handles and scratch on `device`. Throws ConfigError when the device
  /// does not exist, CudaError / BlasError / SolverError when the runtime fails.
  explicit CudaBackend(int device);
  ~CudaBackend() override;

  std::string_view name() const override { return "cuda"; }

  /// The stream every operation is enqueued on (for the executor's events and NCCL calls).
  cudaStream_t stream() const noexcept { return res_->stream.get(); }
  int device() const noexcept { return device_; }

  /// Synchronises the stream and throws SolverError when any eigh/orthonormalize since the
  /// last check reported a nonzero cuSOLVER info (the failure count is reset). Operations
  /// never read the info themselves, since that would block the host mid-step. For tests and
  /// debug runs; not part of the Backend interface.
  void check_solver_info();

  Buffer allocate(std::size_t bytes) override;
  void upload(void* dst, const void* host, std::size_t bytes) override;
  void download(void* host, const void* src, std::size_t bytes) override;
  void synchronize() override;

  void fill_zero(void* dst, std::size_t bytes) override;
  void copy(void* dst, const void* src, std::size_t bytes) override;
  void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t width, std::size_t rows) override;
  void convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
               std::int64_t n) override;

  void gemm(const GemmArgs& args) override;
  void eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) override;
  std::size_t eigh_workspace_bytes(std::int64_t n, std::int64_t count) override;
  void orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) override;
  std::size_t orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) override;

  void sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                   float* out) override;
  void count_nonfinite(const float* x, std::int64_t n, int* counter) override;
  void column_dots(const float* a, const float* b, std::int64_t n, float* out) override;

  void muon_momentum(float* buf, const float* g, void* out, ElementType out_type, std::int64_t n,
                     float mu, bool nesterov) override;
  void normalize(void* x, ElementType type, std::int64_t n, std::int64_t count, const float* sumsq,
                 float eps) override;
  void normalize_rms(float* x, std::int64_t n, const float* sumsq, float eps) override;
  void axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
             float beta) override;
  void ema(float* m, const float* g, std::int64_t n, float beta) override;
  void ema_square(float* v, const float* g, std::int64_t n, float beta) override;
  void adam_direction(const float* m, const float* v, float* out, std::int64_t n, float bias1,
                      float bias2, float eps) override;
  void divide_sqrt_eps(const float* x, const float* v, float* out, std::int64_t n,
                       float eps) override;
  void apply_update(float* p, const void* u, ElementType u_type, std::int64_t n, std::int64_t count,
                    float lr, float wd, float scale, DecayOrder order, const float* ratio_num,
                    const float* ratio_den) override;
  void adamw_step(float* p, const float* g, float* m, float* v, std::int64_t n, float lr,
                  float beta1, float beta2, float eps, float wd, float bias1, float bias2) override;

  void add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) override;
  void scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                         std::int64_t count, float eps, float exponent) override;
  void reverse_columns(float* a, std::int64_t n, std::int64_t count) override;
  void argsort_descending(const float* values, std::int64_t n, int* perm) override;
  void permute_columns(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                       float* out) override;
  void permute_rows(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                    float* out) override;

 protected:
  void release(void* data) noexcept override;

 private:
  /// Capacity of the sum_squares partial sums (floats): 256 KiB, allocated once.
  static constexpr std::int64_t kPartialsCapacity = std::int64_t{1} << 16;
  /// Jacobi eigensolver settings for the batched small-matrix path: fp32 machine epsilon
  /// and cuSOLVER's default sweep limit; eigenvalues sorted ascending, as eigh promises.
  static constexpr double kSyevjTolerance = 1.1920929e-07;
  static constexpr int kSyevjMaxSweeps = 100;

  /// True when eigh takes the batched Jacobi path (syevjBatched), else one syevd per item.
  static bool use_batched_eigh(std::int64_t n, std::int64_t count) noexcept {
    return n <= 32 && count > 1;
  }

  /// Everything that lives on the device. Held by pointer so the destructor can make the
  /// device current before cuBLAS, cuSOLVER and the stream are torn down.
  struct Resources {
    cuda::Stream stream;
    cuda::BlasHandle blas;
    cuda::SolverHandle solver;
    cuda::DeviceBuffer<float> partials;
    /// [0]: solver calls with nonzero info since the last check, [1]: one such info value.
    cuda::DeviceBuffer<int> solver_status;
  };

  int device_;
  std::unique_ptr<Resources> res_;
};

}  // namespace canzona::backend
