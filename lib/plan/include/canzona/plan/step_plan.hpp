// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// StepPlan: who steps which matrix and which collectives move what, for one optimizer step of a
// model on a (dp, tp) job. One plan serves Canzona and every baseline; the executor (lib/exec)
// runs it on real ranks and the projector (lib/sim) costs it. A plan is a pure function of
// (model, parallel config, strategy options), so every rank builds the same one (plan_hash).
#pragma once

#include <canzona/comm/types.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/model/split.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/options.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canzona/plan/cost.hpp"
#include "canzona/plan/dp_partition.hpp"
#include "canzona/plan/micro_groups.hpp"

namespace canzona::plan {

// ---------------------------------------------------------------------------------------------
// Strategy choices
// ---------------------------------------------------------------------------------------------

/// Who steps the matrices of a matrix buffer across the DP group.
enum class DpStrategy {
  kCanzona,     ///< alpha-balanced static partition, uneven RS / AG ("canzona")
  kStatic,      ///< Eq.(1) whole-tensor partition without balancing, uneven RS / AG ("static")
  kReplicated,  ///< DP-SC: gradient all-reduce, every DP rank steps every matrix ("sc")
  kLayerwisePingPong,    ///< NVIDIA layer-wise: ping-pong by numel, all-reduce, AG-v ("layerwise")
  kLayerwiseRoundRobin,  ///< layer-wise, model order round-robin ("layerwise-roundrobin")
  kLayerwiseLpt,         ///< layer-wise, LPT on the cost ("layerwise-lpt")
};

/// Who steps a TP-sharded matrix inside the TP group of its DP owner.
enum class TpStrategy {
  kReplicated,  ///< TP-SC: all-gather on every TP rank, redundant compute ("sc")
  kAsync,       ///< ASC: micro-groups in model order, one matrix per host, no balancing ("asc")
  kCanzona,     ///< Canzona micro-group scheduling (MicroGroupMode, capacity) ("canzona")
};

/// How a micro-group's shards travel to and from their hosts.
enum class TpTransport {
  kAllToAll,       ///< one fused all-to-all-v gather and one scatter per micro-group ("all-to-all")
  kGatherScatter,  ///< one gather and one scatter per matrix, rooted at its host ("gather-scatter")
};

/// How the micro-groups of a DP rank's TP group run.
enum class TpExecution {
  /// Issue order G0, G1, S0, G2, S1, …: the gather of g + 1 travels while g computes and the
  /// scatter of g overlaps g + 1 ("pipelined").
  kPipelined,
  /// Megatron-Canzona's executor: per micro-group a blocking gather, the compute, a blocking
  /// scatter and the shard updates, one group after the other ("serial").
  kSerial,
};

/// Staging sets of the pipelined execution: G(g + 1) fills one while g computes from another and
/// S(g − 1) drains a third, so the gather of micro-group g reuses the staging of the scatter of
/// g − kPipelineStagingSets and is packed once that scatter has completed.
inline constexpr std::size_t kPipelineStagingSets = 3;

/// What a slot's capacity counts.
enum class SlotUnit {
  /// Elements of the full matrices a slot hosts, as the host reconstructs them ("full").
  kFullMatrix,
  /// TP-local elements: the shards of those matrices one TP rank holds, so the full-matrix
  /// capacity is tp times larger. The reference code's TP_BALANCED_OPT_FUSE_SPACE counts these
  /// ("tp-local").
  kTpLocal,
};
std::string_view to_string(SlotUnit unit);
SlotUnit parse_slot_unit(std::string_view text);

/// How Canzona's DP partition is balanced (alpha = 1; alpha < 1 always runs the greedy alone).
enum class DpBalance {
  /// The §3.3 greedy, in elements and in cost, improved by refine_partition and
  /// search_partition: the lowest busiest rank this project can plan ("refined").
  kRefined,
  /// The reference code's plain §3.3 greedy in elements with its acceptance test against Eq.(1),
  /// nothing more: plans as the authors' partitioner makes them ("greedy").
  kReferenceGreedy,
};

std::string_view to_string(DpBalance balance);
DpBalance parse_dp_balance(std::string_view text);
std::string_view to_string(DpStrategy strategy);
std::string_view to_string(TpStrategy strategy);
std::string_view to_string(TpTransport transport);
std::string_view to_string(TpExecution execution);
/// Case-sensitive inverses of to_string; ConfigError naming the value and listing the choices.
DpStrategy parse_dp_strategy(std::string_view text);
TpStrategy parse_tp_strategy(std::string_view text);
TpTransport parse_tp_transport(std::string_view text);
TpExecution parse_tp_execution(std::string_view text);

/// Megatron's mixed precision for bf16 training with its distributed optimizer: model
/// parameters of type `params` in the ZeRO-1 parameter buffer (what the forward pass reads and
/// the parameter all-gather moves), gradients accumulated and reduced in `grad_reduce`
/// (Megatron's --accumulate-allreduce-grads-in-fp32, its bf16 default, or --grad-reduce-in-bf16),
/// and fp32 main parameters with the optimizer state for what a rank steps. `params` fp32 is
/// pure fp32 training: the optimizer steps the model parameters themselves, no main copy.
struct Precision {
  comm::DataType params = comm::DataType::kBFloat16;      ///< bf16 or fp32
  comm::DataType grad_reduce = comm::DataType::kFloat32;  ///< fp32 or bf16 (needs bf16 params)
};

/// "bf16" or "fp32" (the CLI's and the plan JSON's spelling of the two dtypes a Precision holds).
std::string_view dtype_name(comm::DataType type);
/// Inverse of dtype_name; ConfigError naming `what` (e.g. "--param-dtype") otherwise.
comm::DataType parse_dtype(std::string_view text, std::string_view what);

/// Everything a strategy needs besides the model and the parallel config.
struct StrategyOptions {
  DpStrategy dp = DpStrategy::kCanzona;
  TpStrategy tp = TpStrategy::kCanzona;
  /// Canzona DP: blend of the even split (0) and the deficit-proportional targets (1).
  double alpha = 1.0;
  /// What the DP partition and the micro-groups balance, and what metrics report as `cost`.
  CostKind cost = CostKind::kFlops;
  /// Canzona DP: refined (default) or the reference's plain greedy (fidelity runs).
  DpBalance dp_balance = DpBalance::kRefined;
  /// Canzona TP schedule (kAsync always uses kNo).
  MicroGroupMode tp_schedule = MicroGroupMode::kGlobal;
  /// Canzona TP slot capacity in MiB of fp32 elements per host per micro-group, counted as
  /// `slot_unit` says; 0 = unbounded. Ignored unless tp_schedule is kSlot or kGlobal.
  double slot_mib = 0;
  SlotUnit slot_unit = SlotUnit::kFullMatrix;
  TpTransport transport = TpTransport::kAllToAll;
  /// How the micro-groups run (both TP sides with micro-groups: canzona, asc).
  TpExecution tp_execution = TpExecution::kPipelined;
  Precision precision;
  model::SplitOptions split;
  optim::OptimizerSpec optimizer;
  layout::Zero1Options zero1;  ///< separate_matrix_buffer is forced on by make_step_plan
};

/// options.slot_mib as a number of fp32 full-matrix elements (0 = unbounded) at TP size `tp`:
/// the micro-group capacity (times tp when options.slot_unit is kTpLocal).
std::int64_t slot_capacity_elements(const StrategyOptions& options, int tp);
/// The slot capacity in words: "unbounded", "1600 MiB of TP-local elements", "64 MiB of full
/// matrices".
std::string describe_slot(const StrategyOptions& options);

/// Validates the options (alpha in [0, 1], slot_mib >= 0 and finite, the precision, the
/// optimizer spec, the split options); ConfigError naming the field and the accepted range.
void validate(const StrategyOptions& options);

// ---------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------

/// How a buffer's gradients are reduced over the DP group, per bucket.
enum class GradSync {
  kReduceScatter,  ///< uneven reduce-scatter on the bucket's cuts (ZeRO-1, Canzona, static)
  kAllReduce,      ///< all-reduce of the whole bucket (DP-SC, layer-wise)
};
/// How updated parameters get back to every DP rank.
enum class ParamSync {
  kAllGather,       ///< uneven all-gather of each bucket on its cuts
  kAllGatherOwned,  ///< layer-wise: one all-gather-v of every rank's owned entries, packed
  kNone,            ///< DP-SC: every rank stepped everything itself
};
std::string_view to_string(GradSync sync);
std::string_view to_string(ParamSync sync);

/// One ZeRO-1 buffer of the layout and how the DP group treats it.
struct BufferPlan {
  std::size_t buffer = 0;  ///< index into StepPlan::layout.buffers
  bool matrix = false;     ///< entries are stepped by the matrix optimizer (else AdamW)
  GradSync grad_sync = GradSync::kReduceScatter;
  ParamSync param_sync = ParamSync::kAllGather;
  /// Bucket cuts. kReduceScatter / kAllGather use them; for a matrix buffer they never cut an
  /// entry (check_partition holds). For all-reduce buffers: the even partition (unused by the
  /// collectives, kept so every buffer has cuts).
  DpPartition partition;
  /// Per entry (buffer.entries order): the DP rank that steps it, or -1 when every DP rank does
  /// (DP-SC) or the entry is cut (AdamW's element-wise split: each rank steps its slice).
  std::vector<int> owner;
};

/// One matrix-optimizer parameter: where it lives and who steps it.
struct MatrixPlan {
  std::size_t param_index = 0;  ///< into StepPlan::layout.params
  std::size_t buffer = 0;       ///< into StepPlan::buffers (== layout.buffers index)
  std::size_t entry = 0;        ///< into layout.buffers[buffer].entries
  std::string name;
  optim::Shape full;   ///< the TP-gathered matrix (what the host steps)
  optim::Shape local;  ///< one TP rank's shard (== full when tp_dim is kReplicated or tp == 1)
  int tp_dim = -1;     ///< model::kReplicated, kColumnParallel or kRowParallel (tp > 1 only)
  /// What the optimizer steps: row ranges of the gathered matrix (one kWhole fragment when
  /// unsplit). Each fragment has its own optimizer state.
  std::vector<model::Fragment> fragments;
  std::vector<double> fragment_cost;  ///< per fragment, StrategyOptions::cost units
  double cost = 0;                    ///< Σ fragment cost
  double flops = 0;                   ///< Σ fragment mean FLOPs per step (optim::step_cost)
  std::int64_t state_bytes = 0;       ///< Σ fragment optimizer state bytes
  int dp_owner = -1;  ///< DP rank whose TP group steps it; -1: every DP rank (DP-SC)
  /// TP rank that gathers, steps and scatters it; -1: every TP rank steps it redundantly
  /// (TP-SC, tp == 1, or a matrix not sharded over TP).
  int tp_host = -1;
  int micro_group = -1;  ///< index into StepPlan::micro_groups[dp rank]; -1 when tp_host == -1
  bool sharded() const { return tp_dim != -1 && local.rows * local.cols != full.rows * full.cols; }
};

/// One micro-group of a DP rank's TP group: slots[t] lists the matrices (StepPlan::matrices
/// indices) TP rank t hosts, in execution order.
struct MicroGroupPlan {
  std::vector<std::vector<std::size_t>> slots;
  double max_slot_cost = 0;
};

/// The plan. Built only by baselines::make_step_plan (baselines/strategy.hpp).
struct StepPlan {
  std::string strategy;  ///< display name, e.g. "canzona", "sc", "layerwise", "static+asc"
  StrategyOptions options;
  layout::Zero1Layout layout;
  std::vector<BufferPlan> buffers;   ///< one per layout buffer, same order
  std::vector<MatrixPlan> matrices;  ///< matrix-optimizer params, model order
  /// [dp rank][group]: the TP micro-groups of each DP rank's TP group, execution order. Empty
  /// (one empty list per DP rank) for TP-SC and for tp == 1.
  std::vector<std::vector<MicroGroupPlan>> micro_groups;
  /// Per DP rank: StepPlan::matrices indices it steps redundantly on every TP rank (TP-SC,
  /// tp == 1, unsharded matrices), model order.
  std::vector<std::vector<std::size_t>> replicated_matrices;
  int dp() const { return layout.config.dp; }
  int tp() const { return layout.config.tp; }
};

/// The fragments the optimizer steps for a matrix-optimizer parameter under `split` at `tp`:
/// model::split_parameter, except that an unsplit fused fc1 at tp > 1 lists the gate rows and
/// then the up rows of the TP-gathered matrix ([gate_0; up_0; gate_1; up_1; …]), so the optimizer
/// sees [gate; up] exactly as at tp = 1 and every tp steps the same matrix.
std::vector<model::Fragment> plan_fragments(const model::ParamSpec& param,
                                            const model::ModelSpec& model,
                                            const model::SplitOptions& split, int tp);

/// The invariants, as canzona::Error naming what is wrong: every matrix stepped by exactly one
/// (DP owner, TP host) or declared replicated, no DP cut inside a matrix of a sharded buffer,
/// owners inside their slices, micro-group slot capacity respected.
void check_plan(const StepPlan& plan);

/// FNV-1a 64 of a canonical serialisation of everything the executor acts on. Equal plans hash
/// equal on every rank and machine; ranks compare it before running.
std::uint64_t plan_hash(const StepPlan& plan);

// ---------------------------------------------------------------------------------------------
// Collectives and metrics
// ---------------------------------------------------------------------------------------------

/// Phases of a step, in order; the executor times each and the projector models each.
enum class Phase { kGradSync, kTpGather, kCompute, kTpScatter, kParamSync };
inline constexpr std::size_t kPhaseCount = 5;
std::string_view to_string(Phase phase);  ///< "grad_sync", "tp_gather", ... "param_sync"
/// The AdamW step of the element-wise buffers: no collective of its own, so not a Phase, but
/// timed by the executor and modelled by the projector as one.
inline constexpr std::string_view kUpdatePhaseName = "update";
/// Time blocked on collectives: part of the phases' time, reported beside them.
inline constexpr std::string_view kIdleName = "idle";
/// The step's phases as every result names them, in execution order (the AdamW update follows
/// the gradient sync): the executor's timer slots, the projector's phases, the suites'
/// `<phase>_ms` counters, the projection tables and the plots (results/SCHEMA.md).
inline constexpr std::size_t kReportedPhaseCount = 6;
const std::array<std::string_view, kReportedPhaseCount>& reported_phase_names();

/// The communicator a collective runs on.
enum class Group { kDp, kTp };

/// One collective the executor issues, as one rank sees it. Ops, element type and byte counts
/// follow comm::TraceEntry exactly (count in elements of `dtype`, direct-exchange bytes).
///
/// Element types (Megatron's data flow): the DP gradient sync moves options.precision
/// .grad_reduce; the TP gathers (micro-groups, TP-SC) move the fp32 main gradients, nothing
/// else; the TP scatter moves the update direction in optim::direction_type (bf16 for Muon with
/// bf16 Newton–Schulz, fp32 otherwise); the DP parameter sync moves options.precision.params.
struct PlannedCollective {
  Phase phase = Phase::kGradSync;
  Group group = Group::kDp;
  std::string op;  ///< comm::to_string(CollectiveOp): "reduce_scatter", "all_to_all", ...
  comm::DataType dtype = comm::DataType::kFloat32;
  int group_size = 1;
  int root = -1;
  std::size_t count = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  /// Layout buffer (DP collectives); kEveryBuffer for a parameter all-gather-v that packs the
  /// owned entries of several buffers (owned_sync_groups).
  std::size_t buffer = 0;
  int bucket = -1;       ///< bucket index (DP per-bucket collectives), else -1
  int micro_group = -1;  ///< micro-group (TP collectives), else -1
  int matrix = -1;       ///< StepPlan::matrices index (per-matrix TP collectives), else -1
};
/// PlannedCollective::buffer of a collective that serves several buffers.
inline constexpr std::size_t kEveryBuffer = static_cast<std::size_t>(-1);

/// Every collective global rank (dp_rank, tp_rank) issues in one step, in issue order per group
/// (DP collectives of all buffers first, then the TP micro-group and TP-SC collectives, then the
/// parameter sync). The executor's trace must equal it entry for entry.
std::vector<PlannedCollective> rank_collectives(const StepPlan& plan, int dp_rank, int tp_rank);

/// The buffers whose owned entries travel in one parameter all-gather-v (ParamSync::
/// kAllGatherOwned), one list per all-gather-v in issue order: the dense buffers together and
/// the expert buffers together, as Megatron's LayerWiseDistributedOptimizer gathers its dense
/// and its expert parameters. Buffers in layout order inside a list.
std::vector<std::vector<std::size_t>> owned_sync_groups(const StepPlan& plan);

/// Per DP rank, Σ numel of the entries it owns in the buffers of `group` (one list of
/// owned_sync_groups): what it contributes to that packed all-gather-v, buffer by buffer in
/// group order, entry order inside a buffer.
std::vector<std::size_t> owned_counts(const StepPlan& plan, const std::vector<std::size_t>& group);

/// Work of one global rank (rank = dp_rank · tp + tp_rank, Megatron order).
struct RankLoad {
  int dp_rank = 0;
  int tp_rank = 0;
  double cost = 0;   ///< Σ cost (StrategyOptions::cost units) of the matrix fragments it steps
  double flops = 0;  ///< Σ mean FLOPs of the matrix fragments it steps
  double adamw_flops = 0;  ///< FLOPs of its AdamW elements (its slices of the AdamW buffers)
  std::int64_t adamw_elements = 0;  ///< elements of its AdamW slices (padding included)
  std::int64_t state_bytes = 0;     ///< optimizer state it holds (matrix states + AdamW slices)
  std::array<std::uint64_t, kPhaseCount> bytes_sent{};      ///< per Phase
  std::array<std::uint64_t, kPhaseCount> bytes_received{};  ///< per Phase
};

/// Plan quality over all dp·tp ranks.
struct PlanMetrics {
  std::vector<RankLoad> ranks;  ///< global rank order
  double imbalance = 1;         ///< max / mean of matrix cost over ranks (1 when zero)
  /// max(Σ distinct matrix cost / ranks, largest single fragment cost): no plan's busiest rank
  /// can do less.
  double lower_bound = 0;
  double max_cost = 0;  ///< busiest rank's matrix cost
  double max_over_lower_bound = 1;
  /// max(1, largest single fragment cost / mean rank cost): the lowest imbalance any placement
  /// of this plan's work items could reach, for judging `imbalance` where one matrix dominates.
  double imbalance_floor = 1;
  double flops_imbalance = 1;  ///< the same imbalance measured in FLOPs
};

/// Metrics of the plan. cost / imbalance / lower bound count matrix work only (what the
/// strategies differ in); AdamW work and state are reported per rank beside it.
PlanMetrics plan_metrics(const StepPlan& plan);

}  // namespace canzona::plan
