// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The entry point of libcanzona_device.so: the table of everything CUDA that the rest of
// Canzona reaches through canzona::device_module() (core/device_module.hpp).
#include <canzona/config.hpp>
#include <canzona/core/device_module.hpp>
#include <canzona/cuda/devices.hpp>

#include "cuda_backend.hpp"
#include "device_parts.hpp"
#include "stack_versions.hpp"

#if CANZONA_WITH_NCCL
#include <canzona/comm/nccl_communicator.hpp>
#endif

#include <string>

namespace canzona {
namespace {

backend::Backend* make_cuda_backend(int device) { return new backend::CudaBackend(device); }

#if CANZONA_WITH_NCCL
comm::Communicator* make_nccl_communicator(const comm::NcclBootstrap& bootstrap,
                                           const std::string& name, int device) {
  return comm::NcclCommunicator::create(bootstrap, name, device).release();
}
#endif

DeviceModule make_table() {
  DeviceModule m;
  m.abi = kDeviceModuleAbi;
  m.device_count = &cuda::device_count;
  m.no_device_reason = &cuda::no_device_reason;
  m.current_device = &cuda::current_device_or_none;
  m.device_name = &cuda::device_name;
  m.total_memory_bytes = &cuda::total_memory_bytes;
  m.free_memory_bytes = &cuda::free_memory_bytes;
  m.make_cuda_backend = &make_cuda_backend;
#if CANZONA_WITH_NCCL
  m.make_nccl_communicator = &make_nccl_communicator;
#endif
#if CANZONA_WITH_NCCL
  m.make_stream_ordering = &exec::detail::new_stream_ordering;
#endif
  m.make_event_timer = &exec::detail::new_event_timer;
  m.stack_versions = &device::stack_versions;
  return m;
}

}  // namespace
}  // namespace canzona

extern "C" __attribute__((visibility("default"))) const canzona::DeviceModule*
canzona_device_module() {
  static const canzona::DeviceModule table = canzona::make_table();
  return &table;
}
