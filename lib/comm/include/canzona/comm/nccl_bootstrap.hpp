// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What creating a multi-process NCCL communicator needs from the host group that starts it: the
// rank's place in the group and on its node, and a broadcast of rank 0's ncclUniqueId. The
// device module takes this instead of an MpiCommunicator, so it links no MPI: one GPU in one
// process needs no libmpi. The MPI side fills it (nccl_factory.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <span>

namespace canzona::comm {

struct NcclBootstrap {
  int rank = 0;        ///< in the group, which the NCCL communicator's ranks follow
  int size = 1;        ///< ranks in the group
  int local_rank = 0;  ///< among the group's ranks on this node (picks the GPU)
  int local_size = 1;  ///< the group's ranks on this node
  /// Collective over the group: every rank ends with rank 0's bytes (the same size everywhere).
  std::function<void(std::span<std::byte>)> broadcast_from_rank0;
};

}  // namespace canzona::comm
