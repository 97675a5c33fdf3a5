// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The projected iteration: the projector's optimizer step (lib/sim, through the optimizer-step
// suite's adapter) with forward and backward around it, on a cluster larger than the job. A
// projection, never a measurement.
#pragma once

#include "case_plan.hpp"
#include "case_projection.hpp"
#include "e2e_case.hpp"
#include "iteration_counters.hpp"

#include <string>

namespace canzona::bench::e2e {

/// What a projected row reports besides its counters.
struct ProjectedIteration {
  IterationCounters counters;
  std::string topology;
  std::string compute;         ///< the optimizer step's compute: "cost_model" or "measured(cuda)"
  double gemm_efficiency = 0;  ///< the device profile's, which forward / backward assume
};

/// Projects one iteration of `c` on `topology` (a preset or a topology file) with
/// `micro_batches` micro-batches per DP rank:
///   forward + backward: model::training_flops of the DP rank's tokens / tp (Megatron TP splits
///     every matrix product evenly) over the device profile's bf16 rate × GEMM efficiency,
///     backward twice forward;
///   TP: per micro-batch, Megatron's all-reduces of the [mbs, seq, hidden] bf16 activations
///     without sequence parallelism (two per layer forward and two backward, the embedding's
///     forward and the head input's backward), each costed by the projector's collective model
///     on a TP group inside one node; not overlapped with compute;
///   the optimizer step: `step`'s optimizer_seconds (the step with the DP gradient sync and the
///     bucketed parameter all-gather hidden, as Megatron overlaps them) plus, as exposed DP
///     sync, whatever of that hidden sync (step_seconds − optimizer_seconds) exceeds the window
///     it hides in: the last micro-batch's backward and the first one's forward.
/// ConfigError when the topology has no device profile.
ProjectedIteration project_iteration(const E2ECase& c, const step::ProjectedStep& step,
                                     const std::string& topology, int micro_batches);

}  // namespace canzona::bench::e2e
