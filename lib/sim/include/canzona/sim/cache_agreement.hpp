// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Measured compute times agreed on by every rank of a job.
#pragma once

#include "canzona/sim/compute_model.hpp"

#include <canzona/comm/communicator.hpp>

namespace canzona::sim {

/// Every rank measured the same shapes at the same time: replaces each entry of `cache` by its
/// maximum over the ranks of `world`, so that every rank projects with the same numbers, those
/// of the slowest core. A step waits for its slowest rank, and the cores of one (virtual)
/// machine can differ by 10-25 % for minutes: projected with the ranks' mean, nearly every
/// measured row of a 2-rank job on such a machine came out short, by up to 26 %
/// (results/projections/README.md, "Under load").
/// Collective. Error when the ranks hold different numbers of entries.
void agree_on_cache(comm::Communicator& world, ComputeCache& cache);

}  // namespace canzona::sim
