// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Which ordering and timer an executor gets when the caller names none, and the factories of the
// device implementations, which live in the device module (lib/device) and are loaded with it.
#include <canzona/config.hpp>
#include <canzona/core/device_module.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include "canzona/exec/comm_ordering.hpp"
#include "canzona/exec/step_timer.hpp"

namespace canzona::exec {

bool uses_device_streams(const backend::Backend& backend, const comm::Communicator& dp,
                         const comm::Communicator& tp) {
  return CANZONA_WITH_CUDA && CANZONA_WITH_NCCL && backend.name() == "cuda" &&
         dp.memory_space() == comm::MemorySpace::kDevice && dp.backend() == "nccl" &&
         tp.memory_space() == comm::MemorySpace::kDevice && tp.backend() == "nccl";
}

std::unique_ptr<CommOrdering> make_default_ordering(backend::Backend& backend,
                                                    const comm::Communicator& dp,
                                                    const comm::Communicator& tp) {
  return uses_device_streams(backend, dp, tp) ? make_stream_ordering(backend)
                                              : make_host_ordering(backend);
}

std::unique_ptr<StepTimer> make_default_timer(backend::Backend& backend,
                                              const comm::Communicator& dp,
                                              const comm::Communicator& tp) {
  return uses_device_streams(backend, dp, tp) ? make_event_timer(backend) : make_host_timer();
}

std::unique_ptr<CommOrdering> make_stream_ordering(backend::Backend& backend) {
  if (backend.name() != "cuda") {
    throw ConfigError(fmt::format(
        "executor: the stream ordering needs the cuda backend, not '{}'; use make_host_ordering",
        backend.name()));
  }
  const DeviceModule& module = require_device_module("executor: the stream ordering");
  if (module.make_stream_ordering == nullptr) {
    throw ConfigError(
        "executor: the stream ordering needs a build with NCCL (-DCANZONA_ENABLE_NCCL=ON); use "
        "make_host_ordering");
  }
  return std::unique_ptr<CommOrdering>(module.make_stream_ordering(backend));
}

std::unique_ptr<StepTimer> make_event_timer(backend::Backend& backend) {
  if (backend.name() != "cuda") {
    throw ConfigError(fmt::format(
        "executor: the CUDA-event timer needs the cuda backend, not '{}'; use make_host_timer",
        backend.name()));
  }
  return std::unique_ptr<StepTimer>(
      require_device_module("executor: the CUDA-event timer").make_event_timer(backend));
}

}  // namespace canzona::exec
