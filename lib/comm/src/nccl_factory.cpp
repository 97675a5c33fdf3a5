// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/comm/nccl_factory.hpp"

#include "canzona/comm/mpi_communicator.hpp"
#include "canzona/comm/nccl_bootstrap.hpp"
#include "mpi_check.hpp"

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
  // The device module links no MPI: it gets the group's shape and a broadcast over it.
  const NodeRanks node = bootstrap.node_ranks();
  NcclBootstrap group;
  group.rank = bootstrap.rank();
  group.size = bootstrap.size();
  group.local_rank = node.local_rank;
  group.local_size = node.local_size;
  group.broadcast_from_rank0 = [&bootstrap](std::span<std::byte> bytes) {
    // Raw MPI_Bcast on the bootstrap's communicator: keeps the bootstrap out of its trace.
    CANZONA_MPI_CHECK(
        MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, bootstrap.native()));
  };
  return std::unique_ptr<Communicator>(module.make_nccl_communicator(group, name, device));
}

}  // namespace canzona::comm
