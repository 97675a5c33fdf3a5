// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// use_device, DeviceGuard and current_device(): the only code that switches the current device.
#include "canzona/cuda/device_guard.hpp"

#include "canzona/cuda/check.hpp"

#include <cuda_runtime_api.h>

#include <utility>

namespace canzona::cuda {
namespace {

// CUresult cuCtxGetCurrent(CUcontext*), with the driver types reduced to what is used: the
// result code (0 = CUDA_SUCCESS) and an opaque context pointer.
using CtxGetCurrent = int (*)(void**);

CtxGetCurrent ctx_get_current() noexcept {
  static const CtxGetCurrent fn = [] {
    void* symbol = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &symbol, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return CtxGetCurrent{nullptr};
    }
    return reinterpret_cast<CtxGetCurrent>(symbol);
  }();
  return fn;
}

}  // namespace

bool thread_has_context() noexcept {
  const CtxGetCurrent get = ctx_get_current();
  if (get == nullptr) return true;
  void* context = nullptr;
  return get(&context) != 0 || context != nullptr;
}

void use_device(int device) { CANZONA_CUDA_CHECK(cudaSetDevice(device)); }

int current_device() {
  int device = 0;
  CANZONA_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

DeviceGuard::DeviceGuard(int device) {
  // Asked before anything is selected: cudaGetDevice creates no context.
  const bool had_context = thread_has_context();
  const int current = current_device();
  if (device == current) return;
  CANZONA_CUDA_CHECK(cudaSetDevice(device));
  if (had_context) previous_ = current;
}

DeviceGuard::~DeviceGuard() { restore(); }

DeviceGuard::DeviceGuard(DeviceGuard&& other) noexcept
    : previous_(std::exchange(other.previous_, -1)) {}

DeviceGuard& DeviceGuard::operator=(DeviceGuard&& other) noexcept {
  if (this != &other) {
    restore();
    previous_ = std::exchange(other.previous_, -1);
  }
  return *this;
}

void DeviceGuard::restore() noexcept {
  if (previous_ >= 0) {
    CANZONA_CUDA_WARN(cudaSetDevice(previous_));
    previous_ = -1;
  }
}

}  // namespace canzona::cuda
