// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The calling thread's current CUDA device: chosen once per rank at start-up (use_device), and
// switched for a scope (DeviceGuard) only where one thread drives several GPUs.
#pragma once

namespace canzona::cuda {

/// Makes `device` the calling thread's current device for good: the one call a rank makes at
/// start-up (NcclCommunicator::create does it for the rank's local GPU). Since CUDA 12,
/// cudaSetDevice creates that device's primary context; without this call every process of a
/// node would leave device 0 current and put a context (~0.5 GiB) on GPU 0. Throws CudaError.
void use_device(int device);

/// Makes `device` current for the calling thread and restores the previous device when it goes
/// out of scope. Context-safe: a guard whose thread had no CUDA context before it (a fresh
/// thread, or a process that never chose a device) restores nothing, because restoring would
/// create a context on the previous device (device 0) that nobody asked for; the guarded
/// device simply stays current. A no-op when `device` is already current. Move-only; a
/// moved-from guard restores nothing. No stream work, no sync.
class DeviceGuard {
 public:
  /// Throws CudaError when the device cannot be selected.
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(DeviceGuard&& other) noexcept;
  DeviceGuard& operator=(DeviceGuard&& other) noexcept;
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

  /// The device this guard will restore (-1 when it restores nothing).
  int previous() const noexcept { return previous_; }

 private:
  void restore() noexcept;
  int previous_ = -1;
};

/// The calling thread's current device (cudaGetDevice); throws CudaError.
int current_device();

/// True when the calling thread has a current CUDA context (the driver's cuCtxGetCurrent,
/// reached through the runtime without linking the driver library). True as well when the
/// driver cannot answer, so callers fall back to the plain runtime behaviour.
bool thread_has_context() noexcept;

}  // namespace canzona::cuda
