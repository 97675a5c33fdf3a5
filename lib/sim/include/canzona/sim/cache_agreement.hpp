// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Measured compute times agreed on by every rank of a job.
#pragma once

#include "canzona/sim/compute_model.hpp"

#include <canzona/comm/communicator.hpp>

namespace canzona::sim {

/// Every rank measured the same shapes at the same time: replaces each entry of `cache` by its
/// mean over the ranks of `world`, so that every rank projects with the same numbers (and one
/// descheduled rank does not decide alone). Collective. Error when the ranks hold different
/// numbers of entries.
void agree_on_cache(comm::Communicator& world, ComputeCache& cache);

}  // namespace canzona::sim
