// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The "local" topology: this machine's own collectives, measured on a live communicator (the MPI
// ranks of a validation run) over a short size sweep and fitted with the same alpha-beta model
// as nccl-tests output, so a projection of a configuration this machine can run is comparable
// with the measured run.
#pragma once

#include "canzona/sim/nccl_tests.hpp"
#include "canzona/sim/topology.hpp"

#include <canzona/comm/communicator.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace canzona::sim {

struct LocalCalibrationOptions {
  /// Message sizes in bytes (nccl-tests' S of each collective): up to the size of a ZeRO-1
  /// bucket (Megatron's default is 4e7 fp32 elements, 160 MB), since large messages leave the
  /// caches and run at a different rate than small ones.
  std::vector<std::size_t> sizes = {64u << 10, 1u << 20, 16u << 20, 128u << 20};
  int warmup = 2;      ///< untimed repetitions per size
  int iterations = 5;  ///< timed repetitions per size (the fastest, max over ranks, counts)
};

/// Collective over `world` (every rank must call it): times all_reduce, reduce_scatter and
/// all_gather (both in place, as the executor calls them), all_to_all and broadcast at each size
/// (fastest of `iterations`, max over ranks), fits alpha and busbw per collective (fit_alpha_beta;
/// a table whose times do not grow with size, i.e. noise on a busy host, falls back to the
/// smallest and largest message with a warning in provenance and on stderr) and
/// returns a topology named "local" with one node of world.size() ranks, the fitted intra-node
/// constants, no device profile (compute must be measured) and the fits in provenance. Every rank
/// returns the same topology. ConfigError unless the communicator uses host memory (the MPI
/// backend) and has >= 2 ranks.
Topology measure_local_topology(comm::Communicator& world,
                                const LocalCalibrationOptions& options = {});

/// Prepares one measured run for calibrate_topology: rows sorted by size with duplicate sizes
/// dropped (ConfigError when fewer than 2 remain), then, when fit_alpha_beta refuses the run
/// because its times do not grow with the message size (noise on a busy host: one descheduled
/// small message outlasts a large one), the rows are replaced by the line through the smallest
/// time and the largest message. Returns the warning to report in that case, nullopt otherwise.
std::optional<std::string> make_fittable(NcclTestsRun& run);

}  // namespace canzona::sim
