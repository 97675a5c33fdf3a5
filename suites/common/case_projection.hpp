// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What the projector makes of a case's plan: for exactly this job (projector_ms of measured
// rows) and at scale on a topology (projected rows).
#pragma once

#include "case_plan.hpp"
#include "step_job.hpp"
#include "step_slots.hpp"

#include <array>
#include <optional>
#include <string>

namespace canzona::bench::step {

/// The projector's answer for exactly this job.
struct HereProjection {
  /// The step, compute measured on the wall clock: compared with the row's time.
  double step_seconds = 0;
  /// On a host backend: the busiest rank's own compute (AdamW slices and matrix steps) with
  /// compute measured on the thread CPU clock, compared with the row's cpu_ms. Both sides count
  /// only the rank's own work, so preemption by other processes moves neither; what neither
  /// counts is the CPU MPI spends inside waits. Nullopt on a GPU backend.
  std::optional<double> busy_cpu_seconds;
};

/// The projector for exactly this job: the job's own collectives (a "local" topology calibrated
/// once per run over the MPI ranks; with NCCL or a single rank, `topology`) and compute measured
/// per shape on the job's backend by every rank at once, each at the slowest rank's time
/// (sim::agree_on_cache). On host ranks the shapes are measured again at every call. Collective.
/// Nullopt, with a warning from rank 0, when the calibration cannot fit this machine's timings (a
/// heavily loaded machine can time a large message faster than a small one); then for the rest of
/// the run.
std::optional<HereProjection> project_here(StepJob& job, const CasePlan& plan,
                                           const std::string& topology);

/// A projected row.
struct ProjectedStep {
  double step_seconds = 0;       ///< the whole step as the executor runs it
  double optimizer_seconds = 0;  ///< with the DP grad / param sync hidden as Megatron overlaps them
  int straggler_rank = 0;
  double compute_imbalance = 1;            ///< max / mean busy compute time over ranks
  std::array<double, kSlots> straggler{};  ///< the straggler's times per executor slot
  std::string topology;
  std::string compute;  ///< "cost_model" or "measured(cuda)"
  /// The GEMM efficiency the cost model assumes (the topology's device profile); 0 when measured.
  double gemm_efficiency = 0;
};

/// Projects a case onto `topology` (preset or file): compute from the topology's device profile
/// (cost model), or measured on the local GPU when `backend` is cuda. Not collective.
ProjectedStep project_at_scale(const CasePlan& plan, const std::string& topology,
                               const std::string& backend);

/// ConfigError unless `topology` names a preset or a readable topology file.
void check_topology(const std::string& topology);

}  // namespace canzona::bench::step
