// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/device.hpp"

#include <canzona/config.hpp>

#include <algorithm>
#include <cctype>

#if CANZONA_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace canzona {

int cuda_device_count() noexcept {
#if CANZONA_WITH_CUDA
  // cudaGetDeviceCount leaves its argument untouched on failure, hence the explicit 0. With no
  // driver it reports cudaErrorInsufficientDriver, with no device cudaErrorNoDevice: both mean 0.
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

std::string cuda_device_name(int index) {
#if CANZONA_WITH_CUDA
  if (index < 0 || index >= cuda_device_count()) return "";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return prop.name;
#else
  (void)index;
  return "";
#endif
}

std::string device_kind() {
  const int count = cuda_device_count();
  if (count == 0) return "cpu";
  std::string name = cuda_device_name(0);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string model = "gpu";
  for (const char* known : {"h200", "h100", "a100", "b200", "l40s"}) {
    if (name.find(known) != std::string::npos) {
      model = known;
      break;
    }
  }
  return model + "-x" + std::to_string(count);
}

}  // namespace canzona
