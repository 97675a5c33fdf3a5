// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The projector: costs one optimizer step of a StepPlan on an emulated cluster. Every global
// rank gets two streams, as the executor runs them: a communication stream that runs the rank's
// collectives in the plan's issue order (plan::rank_collectives), and a compute stream that runs
// its AdamW slice, its matrix steps and the executor's memory passes around them (the gradient
// average, the casts between main and model parameters, the copies into and out of the TP and
// layer-wise staging).
// A collective starts when every member of its group has reached it and met its dependencies,
// and costs what the alpha-beta model says; a compute task costs what the ComputeModel says. The
// result is a per-rank timeline: projected step latency, phase breakdown, straggler, exposed
// communication.
#pragma once

#include "canzona/sim/compute_model.hpp"
#include "canzona/sim/topology.hpp"

#include <canzona/plan/step_plan.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::sim {

/// Where a rank's time goes. Communication phases count the time the rank's collectives run
/// (from their synchronised start to their end); compute phases the time its kernels run.
struct PhaseTimes {
  double grad_sync = 0;  ///< DP gradient reduce-scatter / all-reduce
  double update = 0;     ///< AdamW on the rank's slices of the AdamW buffers, and the memory passes
  double tp_gather = 0;  ///< TP: all-to-all / gather to hosts, TP-SC all-gathers
  double compute = 0;    ///< matrix optimizer steps (owned, hosted or replicated)
  double tp_scatter = 0;  ///< TP: updated shards back from the hosts
  double param_sync = 0;  ///< DP parameter all-gather
};

/// Names of the PhaseTimes fields in output order: plan::reported_phase_names().
const std::array<std::string_view, plan::kReportedPhaseCount>& phase_names();
/// The field named phase_names()[i].
double phase_value(const PhaseTimes& phases, std::size_t i);

/// One rank's projected step. Times in seconds from the start of the step.
struct RankTimeline {
  int rank = 0;  ///< global rank = dp_rank · tp + tp_rank (Megatron order)
  int dp_rank = 0;
  int tp_rank = 0;
  PhaseTimes phases;
  double end = 0;           ///< when its last collective or kernel finished
  double compute_end = 0;   ///< when its last kernel finished
  double compute_busy = 0;  ///< update + compute
  double comm_busy = 0;     ///< Σ collective durations
  /// Communication not hidden behind this rank's kernels: collective time during which its
  /// compute stream was idle.
  double exposed_comm = 0;
  /// Step end (over all ranks) minus the time the rank was busy on either stream: waiting for
  /// dependencies, for slower group members, or for the step to end.
  double idle = 0;
};

/// How an uneven reduce-scatter / all-gather (Canzona's and Eq.(1)'s cuts) is carried out.
enum class UnevenCollectives {
  /// What lib/comm's NCCL backend does (paper-spec §8, Canzona's UNEVEN_COLLECTIVE_STRATEGIES
  /// "uneven"): one ncclReduce (ncclBroadcast) per non-empty part, rooted at its owner, in one
  /// group. Every ring link carries each part once, so the cost is that of a broadcast of the
  /// whole array S: ring latency + S / busbw(broadcast), whatever the distribution of the parts.
  kGroupedRooted,
  /// Every part padded to the largest ("padded"): an even ring collective on n × the largest
  /// part, i.e. (n−1) · max part bus bytes.
  kPadded,
};
std::string_view to_string(UnevenCollectives mode);                 ///< "grouped", "padded"
UnevenCollectives parse_uneven_collectives(std::string_view text);  ///< ConfigError otherwise

/// What a projection is allowed to assume; defaults model the executor exactly.
struct ProjectionOptions {
  UnevenCollectives uneven = UnevenCollectives::kGroupedRooted;
  /// Also project the step with DP gradient sync and bucketed parameter all-gather hidden
  /// behind backward / forward, as Megatron overlaps them (--overlap-grad-reduce,
  /// --overlap-param-gather): Projection::optimizer_seconds. Layer-wise's all-gather-v of owned
  /// parameters runs after the step and is never hidden.
  bool with_overlapped_variant = true;
  /// Simulate one DP rank per class of DP ranks whose TP groups do identical work (same
  /// micro-groups, replicated matrices, AdamW slice and TP group placement) and give its timeline
  /// to all of them, which is exact (projector.cpp says why) and makes DP-SC cost one DP rank.
  /// false simulates every rank: the reference the tests compare the grouping against.
  bool group_identical_ranks = true;
  /// Whether a rank's collectives run beside its kernels (two streams: NCCL on its own CUDA
  /// stream) or on the thread that computes (a CPU rank under MPI: Open MPI moves a nonblocking
  /// collective's data only inside MPI calls, so a rank's part moves while it waits, after the
  /// kernels it ran meanwhile, never behind them, once every member has posted and every other
  /// member has been inside MPI since the rank posted). false for host ranks.
  bool comm_beside_compute = true;
};

/// The projection of one plan.
struct Projection {
  std::string strategy;        ///< plan.strategy
  std::string topology;        ///< Topology::name
  std::string compute_kind;    ///< ComputeModel::kind()
  std::string compute_source;  ///< ComputeModel::description()
  UnevenCollectives uneven = UnevenCollectives::kGroupedRooted;
  int dp = 1;
  int tp = 1;
  /// The step as the executor runs it: DP grad sync → AdamW → TP pipeline → DP param sync, until
  /// the last rank finishes.
  double step_seconds = 0;
  /// The step with overlappable DP sync hidden (ProjectionOptions::with_overlapped_variant);
  /// what Megatron's "optimizer" timer sees. 0 when not computed.
  double optimizer_seconds = 0;
  /// The rank whose last kernel ends latest: the one the final synchronisation waits for.
  int straggler_rank = 0;
  /// max / mean of compute_busy over ranks (1 when nothing is computed).
  double compute_imbalance = 1;
  double mean_compute_busy = 0;
  RankTimeline straggler;  ///< copy of ranks[straggler_rank]
  PhaseTimes max_phases;   ///< per phase, the maximum over ranks
  double max_exposed_comm = 0;
  std::vector<RankTimeline> ranks;  ///< global rank order
  int collectives = 0;              ///< collective calls (instances) in the step
  int compute_tasks = 0;            ///< kernels (per matrix or AdamW slice) over all ranks
};

/// Projects one step of `plan` on `topology` with compute times from `compute`.
///
/// Global rank r = dp_rank · tp + tp_rank lives on node r / topology.gpus_per_node; a
/// collective's cost depends on whether its group spans nodes (collective_model.hpp). Byte
/// counts come from the plan (each collective in its own element type): the bus bytes of a
/// collective instance are the largest direct-exchange volume of any member (for all-reduce
/// that is nccl-tests' 2(n−1)/n·S; for all-to-all the busiest rank's sent or received bytes;
/// broadcast / reduce: S). An uneven
/// reduce-scatter / all-gather (parts recovered from each member's bytes) is costed as
/// ProjectionOptions::uneven says.
///
/// Dependencies (the executor's): the average of the rank's kept gradients after their grad-sync
/// slots, in at most eight runs of consecutive slots per buffer (ComputeModel::memory_pass_seconds
/// of plan::DpCollectiveSlot::local_elements, read and written), then with bf16 gradient reduction
/// the import into fp32 main gradients; AdamW after the grad sync of the AdamW buffers; a TP gather
/// after the pack of the shards it sends (the matrix buffers' grad sync before it; pipelined, the
/// scatter whose staging it reuses, plan::kPipelineStagingSets groups back; serial, the previous
/// group's scatter); the host's assembly of the gathered shards after its group's last gather (or
/// the TP-SC all-gathers), its steps after that (an unsharded matrix after the matrix buffers'
/// grad sync, staged when a fragment is not one row range); a scatter after the host's steps and
/// the pack of its directions; with bf16 parameters (or layer-wise's pack) the publish after every
/// kernel and every param sync after it, else a buffer's param sync after every step on the rank
/// that touches that buffer; layer-wise's unpack after the last param sync. Every copy costs its
/// bytes read and written as a memory pass. Streams serialise: collectives in issue order, kernels
/// in the executor's order: averages and import, (pipelined) the first group's pack, AdamW, the
/// unsharded matrices, per micro-group the next group's pack (serial: its own), the assembly, the
/// steps (slot order) and the directions' pack, then the TP-SC matrices, the publish. With
/// ProjectionOptions::comm_beside_compute false (host ranks) the two streams of a rank are one: a
/// rank posts a collective once the kernel it sends from has run, and its part of the collective
/// starts once it waits for it (free of kernels), every member has posted it and every other
/// member has waited, for this or an earlier collective, since the rank posted.
///
/// Throws canzona::Error when the plan's collectives cannot be matched across a group (a plan
/// bug) and ConfigError when the topology is invalid.
Projection project(const plan::StepPlan& plan, const Topology& topology, ComputeModel& compute,
                   const ProjectionOptions& options = {});

/// What a projection of `plan` on `topology` does not owe to compute (every rank's streams, the
/// collectives matched across groups and costed, the dependencies, the classes of identical
/// ranks), built once and projected with any number of compute models at the cost of the
/// timeline alone: the GEMM-efficiency band of `project` is three compute models over one plan.
/// `plan` must outlive it; project() is not for concurrent use.
class PreparedProjection {
 public:
  /// The same errors as project() (a topology that is invalid, collectives that do not match).
  PreparedProjection(const plan::StepPlan& plan, const Topology& topology,
                     const ProjectionOptions& options = {});
  ~PreparedProjection();
  PreparedProjection(const PreparedProjection&) = delete;
  PreparedProjection& operator=(const PreparedProjection&) = delete;
  /// Equal to project(plan, topology, compute, options).
  Projection project(ComputeModel& compute);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// {"strategy", "projection": true, "topology", "compute_source", "step_ms", "optimizer_ms",
///  "phases": {grad_sync, update, tp_gather, compute, tp_scatter, param_sync, exposed_comm, idle}
///  (ms, the straggler rank's), "max_phases", "straggler": {rank, dp_rank, tp_rank},
///  "exposed_comm_ms", "compute_imbalance", ...}. Per-rank timelines only when `per_rank`.
nlohmann::json projection_json(const Projection& projection, bool per_rank = false);

}  // namespace canzona::sim
