// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/comm/nccl_factory.hpp"

#include <canzona/core/device_module.hpp>
#include <canzona/core/error.hpp>

namespace canzona::comm {

std::unique_ptr<Communicator> make_nccl_communicator(MpiCommunicator& bootstrap, std::string name,
                                                     int device) {
  const DeviceModule& module = require_device_module("the NCCL communicator");
  if (module.make_nccl_communicator == nullptr) {
    throw ConfigError(
        "the NCCL communicator is not built in (configure with -DCANZONA_ENABLE_NCCL=ON and "
        "-DCANZONA_ENABLE_MPI=ON)");
  }
  return std::unique_ptr<Communicator>(module.make_nccl_communicator(bootstrap, name, device));
}

}  // namespace canzona::comm
