// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron DP/TP split of a world communicator.
#include "canzona/comm/process_groups.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::comm {

ProcessGroups split_dp_tp(Communicator& world, int tp) {
  const int n = world.size();
  if (tp < 1 || n % tp != 0) {
    throw ConfigError(fmt::format(
        "split_dp_tp: tensor-parallel size {} does not divide the {} ranks of communicator '{}'; "
        "choose tp among the divisors of the world size",
        tp, n, world.name()));
  }
  const int r = world.rank();
  ProcessGroups groups;
  // Megatron order: the tp ranks of one model replica are contiguous global ranks, so TP traffic
  // stays inside a node when tp <= GPUs per node.
  groups.tp = world.split(/*color=*/r / tp, /*key=*/r % tp, "tp");
  groups.dp = world.split(/*color=*/r % tp, /*key=*/r / tp, "dp");
  return groups;
}

}  // namespace canzona::comm
