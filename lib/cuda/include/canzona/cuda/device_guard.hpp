// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Scoped switch of the calling thread's current CUDA device.
#pragma once

namespace canzona::cuda {

/// Makes `device` current for the calling thread and restores the previous device when it goes
/// out of scope. Move-only; a moved-from guard restores nothing. No stream work, no sync.
class DeviceGuard {
 public:
  /// Throws CudaError when the device cannot be selected.
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(DeviceGuard&& other) noexcept;
  DeviceGuard& operator=(DeviceGuard&& other) noexcept;
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

  /// The device this guard will restore (-1 after a move).
  int previous() const noexcept { return previous_; }

 private:
  void restore() noexcept;
  int previous_ = -1;
};

/// The calling thread's current device (cudaGetDevice); throws CudaError.
int current_device();

}  // namespace canzona::cuda
