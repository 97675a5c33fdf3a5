// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/cuda/devices.hpp"

#include <cuda_runtime_api.h>

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

}  // namespace canzona::cuda
