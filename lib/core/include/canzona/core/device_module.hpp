// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA side of Canzona (cuda backend, NCCL communicator, stream ordering, event timer,
// device discovery) lives in a separately loaded module, libcanzona_device.so, so that nothing
// that only needs the CPU (`canzona-bench models`, `plan`, `project`, `validate`, the CPU tests)
// loads the CUDA runtime, cuBLAS, cuSOLVER or NCCL at start-up. The module is loaded on first
// use, by the functions that need a GPU, and stays loaded for the life of the process.
// Host-clean: only forward declarations of the types it creates.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace canzona {

namespace backend {
class Backend;
}
namespace comm {
class Communicator;
struct NcclBootstrap;
}  // namespace comm
namespace exec {
class CommOrdering;
class StepTimer;
}  // namespace exec

/// Bumped whenever DeviceModule changes; a module of another layout is refused.
inline constexpr std::uint32_t kDeviceModuleAbi = 4;

/// What the module provides. Factories return owning raw pointers (wrapped by the callers into
/// unique_ptr; the objects' destructors live in the module, which is never unloaded). A null
/// factory means the module was built without that part (NCCL, MPI).
struct DeviceModule {
  std::uint32_t abi = 0;
  /// Usable CUDA devices; 0 without a driver or a device. Never throws.
  int (*device_count)() noexcept = nullptr;
  /// Why device_count() is 0 (the runtime's error), "" when there are devices.
  std::string (*no_device_reason)() = nullptr;
  /// The calling thread's current device, -1 when there is none. Never throws.
  int (*current_device)() noexcept = nullptr;
  /// Name of device `index` ("" when it does not exist).
  std::string (*device_name)(int index) = nullptr;
  /// Total and free memory of device `index` in bytes (0 when unknown). Never throw.
  std::int64_t (*total_memory_bytes)(int index) noexcept = nullptr;
  std::int64_t (*free_memory_bytes)(int index) noexcept = nullptr;
  backend::Backend* (*make_cuda_backend)(int device) = nullptr;
  /// The NCCL communicator of a group; the module links no MPI, the host side fills the
  /// bootstrap (comm/nccl_factory.hpp).
  comm::Communicator* (*make_nccl_communicator)(const comm::NcclBootstrap& bootstrap,
                                                const std::string& name, int device) = nullptr;
  exec::CommOrdering* (*make_stream_ordering)(backend::Backend& backend) = nullptr;
  exec::StepTimer* (*make_event_timer)(backend::Backend& backend) = nullptr;
  /// Versions of the GPU stack the module runs on, as (JSON context key, version) pairs:
  /// cuda_runtime_version, cublas_version, cusolver_version, driver_version (with a driver),
  /// nccl_version (a build with NCCL). Never throws.
  std::vector<std::pair<std::string, std::string>> (*stack_versions)() noexcept = nullptr;
};

/// The device module, loaded on the first call: nullptr in a build without CUDA. Looked up as
/// $CANZONA_DEVICE_MODULE when set, else lib/libcanzona_device.so beside the running
/// executable's bin/ directory (build and install trees), else through the dynamic loader's
/// search path. ConfigError when the build has one but it cannot be loaded (the message quotes
/// the loader's error, e.g. a missing CUDA runtime) or has another ABI.
const DeviceModule* device_module();

/// device_module(), or ConfigError saying that `what` needs a build with CUDA.
const DeviceModule& require_device_module(const char* what);

}  // namespace canzona
