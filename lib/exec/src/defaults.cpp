// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Which ordering and timer an executor gets when the caller names none, and the stubs of the
// device implementations in builds without CUDA / NCCL.
#include <canzona/config.hpp>
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

#if !CANZONA_WITH_CUDA || !CANZONA_WITH_NCCL
std::unique_ptr<CommOrdering> make_stream_ordering(backend::Backend& /*backend*/) {
  throw ConfigError(
      "executor: the stream ordering needs a build with CUDA and NCCL "
      "(-DCANZONA_ENABLE_CUDA=ON -DCANZONA_ENABLE_NCCL=ON); use make_host_ordering");
}
#endif

#if !CANZONA_WITH_CUDA
std::unique_ptr<StepTimer> make_event_timer(backend::Backend& /*backend*/) {
  throw ConfigError(
      "executor: the CUDA-event timer needs a build with CUDA (-DCANZONA_ENABLE_CUDA=ON); use "
      "make_host_timer");
}
#endif

}  // namespace canzona::exec
