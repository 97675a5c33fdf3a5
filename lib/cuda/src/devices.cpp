// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/cuda/devices.hpp"

#include "canzona/cuda/device_guard.hpp"

#include <cuda_runtime_api.h>

#include <exception>

namespace canzona::cuda {

int device_count() noexcept {
  // cudaGetDeviceCount leaves its argument untouched on failure, hence the explicit 0. With no
  // driver it reports cudaErrorInsufficientDriver, with no device cudaErrorNoDevice: both mean 0.
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
}

std::string no_device_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return "";
  (void)cudaGetLastError();
  if (status == cudaSuccess) return "the CUDA driver reports no device";
  return std::string("the CUDA runtime reports ") + cudaGetErrorName(status) + " (" +
         cudaGetErrorString(status) + ")";
}

int current_device_or_none() noexcept {
  if (device_count() == 0) return -1;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return device;
}

std::string device_name(int index) {
  if (index < 0 || index >= device_count()) return "";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return prop.name;
}

std::int64_t total_memory_bytes(int index) noexcept {
  if (index < 0 || index >= device_count()) return 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return static_cast<std::int64_t>(prop.totalGlobalMem);
}

std::int64_t free_memory_bytes(int index) noexcept {
  if (index < 0 || index >= device_count()) return 0;
  try {
    const DeviceGuard guard(index);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      return 0;
    }
    return static_cast<std::int64_t>(free_bytes);
  } catch (const std::exception&) {  // the device cannot be made current
    return 0;
  }
}

}  // namespace canzona::cuda
