// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend: construction, memory, data movement, and the dispatch of reductions, fused
// element-wise kernels and small-matrix helpers to their launchers. GEMM and the solvers live
// in cuda_gemm.cpp and cuda_solver.cpp.
#include "cuda_backend.hpp"

#include "kernels.hpp"

#include <canzona/backend/cuda_backend.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>

#include <fmt/format.h>

#include <cublas_v2.h>

#include <exception>
#include <utility>

namespace canzona::backend {
namespace {

int checked_device(int device) {
  const int devices = cuda_device_count();
  if (device < 0 || device >= devices) {
    throw ConfigError(fmt::format(
        "cuda backend: CUDA device {} does not exist (this machine has {}); use --backend cpu "
        "or a device index below {}",
        device, devices, devices));
  }
  return device;
}

}  // namespace

CudaBackend::CudaBackend(int device) : device_(checked_device(device)) {
  const cuda::DeviceGuard guard(device_);
  res_.reset(
      new Resources{cuda::Stream(),
                    // Default math: fp32 GEMMs stay fp32 (no TF32), comparable to cpu.
                    cuda::BlasHandle(cuda::BlasHandle::kDefaultWorkspaceBytes, CUBLAS_DEFAULT_MATH),
                    cuda::SolverHandle(), cuda::DeviceBuffer<float>(kPartialsCapacity),
                    cuda::DeviceBuffer<int>(2)});
  res_->blas.bind(res_->stream);
  res_->solver.bind(res_->stream);
  res_->solver.configure_syevj(kSyevjTolerance, kSyevjMaxSweeps, /*sort_eigenvalues=*/true);
  res_->solver_status.zero(res_->stream);
  res_->stream.synchronize();
}

CudaBackend::~CudaBackend() {
  try {
    const cuda::DeviceGuard guard(device_);
    CANZONA_CUDA_WARN(cudaStreamSynchronize(res_->stream.get()));
    res_.reset();
  } catch (const std::exception& e) {
    // The guard could not select the device; tear down on the current one rather than leak.
    fmt::print(stderr, "canzona: warning: cuda backend teardown: {}\n", e.what());
    res_.reset();
  }
}

void CudaBackend::check_solver_info() {
  const cuda::DeviceGuard guard(device_);
  int status[2] = {0, 0};
  res_->solver_status.copy_to_host(status, 2, res_->stream);
  res_->solver_status.zero(res_->stream);
  res_->stream.synchronize();
  if (status[0] != 0) {
    throw SolverError(fmt::format("cuda backend: {} cuSOLVER call(s) reported a nonzero info "
                                  "(e.g. {}: >0 means no convergence or a singular factor, <0 "
                                  "an invalid argument)",
                                  status[0], status[1]),
                      status[1]);
  }
}

// ---- memory ---------------------------------------------------------------------------------

Buffer CudaBackend::allocate(std::size_t bytes) {
  if (bytes == 0) {
    return Buffer(this, nullptr, 0);
  }
  const cuda::DeviceGuard guard(device_);
  void* data = nullptr;
  // cudaMalloc returns 256-byte aligned memory, as the interface promises.
  CANZONA_CUDA_CHECK(cudaMalloc(&data, bytes));
  try {
    CANZONA_CUDA_CHECK(cudaMemsetAsync(data, 0, bytes, res_->stream));
    res_->stream.synchronize();
  } catch (...) {
    CANZONA_CUDA_WARN(cudaFree(data));
    throw;
  }
  return Buffer(this, data, bytes);
}

void CudaBackend::release(void* data) noexcept { CANZONA_CUDA_WARN(cudaFree(data)); }

void CudaBackend::upload(void* dst, const void* host, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, res_->stream));
}

void CudaBackend::download(void* host, const void* src, std::size_t bytes) {
  const cuda::DeviceGuard guard(device_);
  if (bytes > 0) {
    CANZONA_CUDA_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, res_->stream));
  }
  res_->stream.synchronize();
}

void CudaBackend::synchronize() {
  const cuda::DeviceGuard guard(device_);
  res_->stream.synchronize();
}

// ---- data movement --------------------------------------------------------------------------

void CudaBackend::fill_zero(void* dst, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, res_->stream));
}

void CudaBackend::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, res_->stream));
}

void CudaBackend::copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                          std::size_t width, std::size_t rows) {
  check_copy_2d(name(), dst_pitch, src_pitch, width);
  if (width == 0 || rows == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows,
                                       cudaMemcpyDeviceToDevice, res_->stream));
}

void CudaBackend::convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                          std::int64_t n) {
  if (n <= 0) {
    return;
  }
  if (dst_type == src_type) {
    copy(dst, src, static_cast<std::size_t>(n) * element_size(dst_type));
    return;
  }
  const cuda::DeviceGuard guard(device_);
  detail::launch_convert(dst, dst_type, src, src_type, n, res_->stream);
}

// ---- reductions -----------------------------------------------------------------------------

void CudaBackend::sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                              float* out) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_sum_squares(x, type, n, count, out, res_->partials.data(), kPartialsCapacity,
                             res_->stream);
}

void CudaBackend::count_nonfinite(const float* x, std::int64_t n, int* counter) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_count_nonfinite(x, n, counter, res_->stream);
}

void CudaBackend::column_dots(const float* a, const float* b, std::int64_t n, float* out) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_column_dots(a, b, n, out, res_->stream);
}

// ---- fused element-wise kernels -------------------------------------------------------------

void CudaBackend::muon_momentum(float* buf, const float* g, void* out, ElementType out_type,
                                std::int64_t n, float mu, bool nesterov) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_muon_momentum(buf, g, out, out_type, n, mu, nesterov, res_->stream);
}

void CudaBackend::normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                            const float* sumsq, float eps) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_normalize(x, type, n, count, sumsq, eps, res_->stream);
}

void CudaBackend::normalize_rms(float* x, std::int64_t n, const float* sumsq, float eps) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_normalize_rms(x, n, sumsq, eps, res_->stream);
}

void CudaBackend::axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                        float beta) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_axpby(y, x, type, n, alpha, beta, res_->stream);
}

void CudaBackend::ema(float* m, const float* g, std::int64_t n, float beta) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_ema(m, g, n, beta, res_->stream);
}

void CudaBackend::ema_square(float* v, const float* g, std::int64_t n, float beta) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_ema_square(v, g, n, beta, res_->stream);
}

void CudaBackend::adam_direction(const float* m, const float* v, float* out, std::int64_t n,
                                 float bias1, float bias2, float eps) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_adam_direction(m, v, out, n, bias1, bias2, eps, res_->stream);
}

void CudaBackend::divide_sqrt_eps(const float* x, const float* v, float* out, std::int64_t n,
                                  float eps) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_divide_sqrt_eps(x, v, out, n, eps, res_->stream);
}

void CudaBackend::apply_update(float* p, const void* u, ElementType u_type, std::int64_t n,
                               std::int64_t count, float lr, float wd, float scale,
                               DecayOrder order, const float* ratio_num, const float* ratio_den) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_apply_update(p, u, u_type, n, count, lr, wd, scale, order, ratio_num, ratio_den,
                              res_->stream);
}

void CudaBackend::adamw_step(float* p, const float* g, float* m, float* v, std::int64_t n, float lr,
                             float beta1, float beta2, float eps, float wd, float bias1,
                             float bias2) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_adamw_step(p, g, m, v, n, lr, beta1, beta2, eps, wd, bias1, bias2, res_->stream);
}

// ---- small-matrix helpers -------------------------------------------------------------------

void CudaBackend::add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_add_diagonal(a, n, count, value, res_->stream);
}

void CudaBackend::scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                                    std::int64_t count, float eps, float exponent) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_scale_columns_pow(q, w, out, n, count, eps, exponent, res_->stream);
}

void CudaBackend::reverse_columns(float* a, std::int64_t n, std::int64_t count) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_reverse_columns(a, n, count, res_->stream);
}

void CudaBackend::argsort_descending(const float* values, std::int64_t n, int* perm) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_argsort_descending(values, n, perm, res_->stream);
}

void CudaBackend::permute_columns(const float* a, std::int64_t rows, std::int64_t cols,
                                  const int* perm, float* out) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_permute_columns(a, rows, cols, perm, out, res_->stream);
}

void CudaBackend::permute_rows(const float* a, std::int64_t rows, std::int64_t cols,
                               const int* perm, float* out) {
  const cuda::DeviceGuard guard(device_);
  detail::launch_permute_rows(a, rows, cols, perm, out, res_->stream);
}

std::unique_ptr<Backend> make_cuda_backend(int device) {
  return std::make_unique<CudaBackend>(device);
}

CUstream_st* cuda_stream(Backend& backend) {
  auto* cuda = dynamic_cast<CudaBackend*>(&backend);
  if (cuda == nullptr) {
    throw Error(fmt::format("cuda_stream: backend '{}' is not a cuda backend", backend.name()));
  }
  return cuda->stream();
}

}  // namespace canzona::backend
