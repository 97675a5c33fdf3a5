// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend: construction, memory, data movement and synchronisation (with the read-back of
// the solver-failure counter). Element-wise work: cuda_elementwise.cu; reductions and sorting:
// cuda_reductions.cu; GEMM: cuda_gemm.cpp; solvers: cuda_solver.cpp.
#include "cuda_backend.hpp"

#include <canzona/comm/timeout.hpp>
#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>
#include <canzona/cuda/devices.hpp>
#include <canzona/cuda/host_wait.hpp>

#include <fmt/format.h>

#include <cublas_v2.h>

#include <exception>
#include <utility>

namespace canzona::backend {
namespace {

int checked_device(int device) {
  const int devices = cuda::device_count();
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
                    cuda::DeviceBuffer<std::byte>(kCubTempBytes), cuda::DeviceBuffer<int>(1),
                    cuda::PinnedBuffer<int>(1)});
  res_->blas.bind(res_->stream);
  res_->solver.bind(res_->stream);
  res_->solver_failures.zero(res_->stream);
  res_->solver_failures_host[0] = 0;
  wait_for_stream("cuda backend: set-up");
}

CudaBackend::~CudaBackend() {
  try {
    const cuda::DeviceGuard guard(device_);
    try {
      wait_for_stream("cuda backend: teardown");
    } catch (const cuda::DeviceWaitTimeout& e) {
      // The device still runs work on these buffers, and freeing them would wait for it again:
      // they are left to the process's exit, which the timeout is about to cause anyway.
      fmt::print(stderr, "canzona: warning: {}; its memory is left to the process exit\n",
                 e.what());
      (void)res_.release();
      return;
    }
    res_.reset();
  } catch (const std::exception& e) {
    // The guard could not select the device; tear down on the current one rather than leak.
    fmt::print(stderr, "canzona: warning: cuda backend teardown: {}\n", e.what());
    res_.reset();
  }
}

void CudaBackend::throw_on_solver_failures() {
  const int failures = res_->solver_failures_host[0];
  if (failures == 0) return;
  res_->solver_failures_host[0] = 0;
  res_->solver_failures.zero(res_->stream);
  throw SolverError(fmt::format("cuda backend: {} cuSOLVER call(s) (eigh / orthonormalize) since "
                                "the last synchronisation reported a nonzero info: no convergence "
                                "or a singular factor (are the statistics finite?)",
                                failures),
                    failures);
}

// ---- memory ---------------------------------------------------------------------------------

Buffer CudaBackend::do_allocate(std::size_t bytes) {
  if (bytes == 0) {
    return Buffer(this, nullptr, 0);
  }
  const cuda::DeviceGuard guard(device_);
  void* data = nullptr;
  // cudaMalloc returns 256-byte aligned memory, as the interface promises.
  CANZONA_CUDA_CHECK(cudaMalloc(&data, bytes));
  try {
    CANZONA_CUDA_CHECK(cudaMemsetAsync(data, 0, bytes, res_->stream));
    wait_for_stream("cuda backend: zeroing a new buffer");
  } catch (...) {
    CANZONA_CUDA_WARN(cudaFree(data));
    throw;
  }
  return Buffer(this, data, bytes);
}

void CudaBackend::release(void* data) noexcept { CANZONA_CUDA_WARN(cudaFree(data)); }

void CudaBackend::do_upload(void* dst, const void* host, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, res_->stream));
}

// Both host waits read the solver-failure counter on the way: one 4-byte copy enqueued before
// the wait, so a failed eigensolve surfaces at the first synchronisation after it without a
// synchronisation of its own.
void CudaBackend::do_download(void* host, const void* src, std::size_t bytes) {
  const cuda::DeviceGuard guard(device_);
  if (bytes > 0) {
    CANZONA_CUDA_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, res_->stream));
  }
  do_synchronize();
}

void CudaBackend::do_synchronize() {
  const cuda::DeviceGuard guard(device_);
  res_->solver_failures.copy_to_host(res_->solver_failures_host.data(), 1, res_->stream);
  wait_for_stream("cuda backend: synchronize");
  throw_on_solver_failures();
}

// Every host wait of the backend is bounded by the collective timeout: NCCL collectives of the
// step share the device, and a peer that died leaves them, and what waits on them, unfinished.
void CudaBackend::wait_for_stream(std::string_view what) {
  res_->stream.synchronize(
      comm::collective_timeout(),
      fmt::format("{} (the backend stream; bounded by CANZONA_COLLECTIVE_TIMEOUT_S)", what));
}

// ---- data movement --------------------------------------------------------------------------

void CudaBackend::do_fill_zero(void* dst, std::size_t bytes) {
  if (bytes == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, res_->stream));
}

void CudaBackend::do_copy(Items<void> dst, Items<const void> src, std::size_t bytes) {
  if (bytes == 0 || dst.count() == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  if (dst.count() == 1) {
    CANZONA_CUDA_CHECK(
        cudaMemcpyAsync(dst[0], src[0], bytes, cudaMemcpyDeviceToDevice, res_->stream));
    return;
  }
  copy_items(dst, src, bytes);
}

void CudaBackend::do_copy_2d(void* dst, std::size_t dst_pitch, const void* src,
                             std::size_t src_pitch, std::size_t width, std::size_t rows) {
  check_copy_2d(name(), dst_pitch, src_pitch, width);
  if (width == 0 || rows == 0) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  CANZONA_CUDA_CHECK(cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, rows,
                                       cudaMemcpyDeviceToDevice, res_->stream));
}

cudaStream_t cuda_stream(Backend& backend) {
  auto* cuda = dynamic_cast<CudaBackend*>(&backend);
  if (cuda == nullptr) {
    throw Error(fmt::format("cuda_stream: backend '{}' is not a cuda backend", backend.name()));
  }
  return cuda->stream();
}

}  // namespace canzona::backend
