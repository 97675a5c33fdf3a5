// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron-style data-parallel / tensor-parallel groups carved out of a world communicator.
#pragma once

#include "canzona/comm/communicator.hpp"

#include <memory>

namespace canzona::comm {

/// The two groups a rank belongs to. Both are the same backend as the world they came from.
struct ProcessGroups {
  std::unique_ptr<Communicator> dp;  ///< Ranks with the same tp index ("dp").
  std::unique_ptr<Communicator> tp;  ///< Ranks with the same dp index ("tp").
};

/// Splits `world` in Megatron order: TP ranks are contiguous, global rank = dp_index·tp +
/// tp_index, so tp->rank() == world.rank() % tp and dp->rank() == world.rank() / tp.
/// Collective over `world` (two blocking splits, TP first). Throws ConfigError when tp < 1 or
/// tp does not divide world.size().
ProcessGroups split_dp_tp(Communicator& world, int tp);

}  // namespace canzona::comm
