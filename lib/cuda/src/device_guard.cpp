// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// DeviceGuard and current_device(): the only code that switches the current device.
#include "canzona/cuda/device_guard.hpp"

#include "canzona/cuda/check.hpp"

#include <utility>

namespace canzona::cuda {

int current_device() {
  int device = 0;
  CANZONA_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

DeviceGuard::DeviceGuard(int device) : previous_(current_device()) {
  if (device != previous_) {
    CANZONA_CUDA_CHECK(cudaSetDevice(device));
  }
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
