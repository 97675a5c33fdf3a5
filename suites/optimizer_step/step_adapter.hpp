// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The suite's one door into the library: building a case's StepPlan (the strategy registry),
// running it on this job's ranks (the executor: communicators, backend, gradients, phase times),
// what the plan says about itself (hash, options, imbalance, bytes, state) and what the projector
// makes of it. The rest of the suite speaks in StepCase and the plain records below, so a change
// of those library interfaces is a change of this file and its .cpp only.
#pragma once

#include "step_case.hpp"

#include <canzona/comm/communicator.hpp>
#include <canzona/exec/step_timer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace canzona::plan {
struct StepPlan;
}
namespace canzona::backend {
class Backend;
}
namespace canzona::comm {
struct ProcessGroups;
}

namespace canzona::bench::step {

/// The executor's timer slots, in exec::TimerSlot order; each is reported as the counter
/// `<exec::to_string(slot)>_ms`.
inline constexpr std::size_t kSlots = exec::kTimerSlots;
/// The slot that is part of the others (time blocked on collectives), not a phase of its own.
inline constexpr std::size_t kIdleSlot = static_cast<std::size_t>(exec::TimerSlot::kIdle);
/// The counter of slot `s`.
inline std::string slot_counter(std::size_t s) {
  return std::string(exec::to_string(static_cast<exec::TimerSlot>(s))) + "_ms";
}

/// The plan's phases that move bytes; each is reported as `<plan::to_string(phase)>_bytes`.
inline constexpr std::array<plan::Phase, 4> kCommPhases = {
    plan::Phase::kGradSync, plan::Phase::kTpGather, plan::Phase::kTpScatter,
    plan::Phase::kParamSync};

/// What a plan says about itself; the same on every rank and in every run.
struct PlanFacts {
  std::string hash;  ///< plan_hash, 16 hex digits
  /// Strategy options that differ from the strategy's defaults under the megatron preset,
  /// "k=v" joined by ',' ("" when none differ): with the name, what rebuilds the plan.
  std::string options;
  double imbalance = 1;    ///< max / mean of the matrix cost over all ranks
  double state_bytes = 0;  ///< optimizer state of the fullest rank (matrices + AdamW)
  std::array<double, kCommPhases.size()> max_bytes_sent{};  ///< per phase, the busiest rank's bytes
  double comm_bytes = 0;     ///< the busiest rank's bytes over all phases
  int refresh_interval = 1;  ///< Shampoo roots / SOAP eigenbases every this many steps
};

/// The settings every case's plan is made with beyond its strategy: the preset and the switches
/// that override it, given as `canzona-bench plan` takes them (`--preset canzona-reference
/// --tp-execution serial`; harness/README.md lists them). "" is the megatron preset.
class PlanSettings {
 public:
  /// ConfigError naming the flag that is unknown or has a bad value.
  explicit PlanSettings(const std::string& flags);
  ~PlanSettings();
  PlanSettings(const PlanSettings&) = delete;
  PlanSettings& operator=(const PlanSettings&) = delete;
  /// The preset and the explicit flags, spelled as `plan` takes them ("--preset megatron").
  const std::string& flags() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// A case's StepPlan. ConfigError for a case the library refuses (strategy, optimizer, TP).
class CasePlan {
 public:
  CasePlan(const StepCase& c, int gpus_per_node, const PlanSettings& settings);
  ~CasePlan();
  CasePlan(const CasePlan&) = delete;
  CasePlan& operator=(const CasePlan&) = delete;
  const PlanFacts& facts() const;

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// The communicators and backend that measured rows run on, for the whole run: MPI ranks with
/// the cpu backend, or one NCCL rank per GPU (bootstrapped over MPI) with the cuda backend.
class StepJob {
 public:
  /// The job's state, created by the first call (collective over every rank) and released when
  /// the RankSession ends. ConfigError when `backend` cannot run here.
  static StepJob& get(const std::string& backend);
  ~StepJob();
  /// Host-memory communicator over every rank: barriers, gathering per-rank records.
  comm::Communicator& host_world();

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit StepJob(const std::string& backend);
  std::unique_ptr<Impl> impl_;
};

/// For a suite that runs more than the optimizer step around the same plan and job (the
/// end-to-end iteration): the case's StepPlan, the job's communicator over every rank (NCCL on
/// cuda, else MPI), its (dp, tp) groups, created once per tp, and its backend.
const plan::StepPlan& step_plan(const CasePlan& plan);
comm::Communicator& job_world(StepJob& job);
comm::ProcessGroups& job_groups(StepJob& job, int tp);
backend::Backend& job_backend(StepJob& job);

/// One step's times on this rank, seconds.
struct StepRecord {
  double total = 0;
  std::array<double, kSlots> slots{};
};

/// The executor of one case on this rank, with its parameters and gradients in place.
class RankStepper {
 public:
  /// Collective over the job (the executor's start-up agreement). Parameters and gradients are
  /// normal(0, 0.02), a function of (`seed`, global rank, buffer, element) (synthetic_values.hpp);
  /// the gradients are kept on the backend and copied back before every step, since the
  /// gradient sync reduces them in place.
  RankStepper(StepJob& job, const CasePlan& plan, std::uint64_t seed);
  ~RankStepper();
  RankStepper(const RankStepper&) = delete;
  RankStepper& operator=(const RankStepper&) = delete;
  /// Copies the kept gradients into the executor's buffers (on the backend) and waits for it.
  void load_gradients();
  /// One optimizer step (collective).
  void step();
  /// Times of the last step (may wait for the device).
  StepRecord last_step();
  /// Backend operations (kernel launches, library calls, copies on a GPU) the last step
  /// enqueued on this rank; the same count on every backend.
  std::uint64_t last_step_operations() const;
  /// Whether the next step refreshes the preconditioners (Shampoo, SOAP).
  bool next_step_refreshes() const;
  /// Backend bytes this rank's executor allocated (buffers, staging, states, workspaces).
  double allocated_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The projector's step, in seconds, for exactly this job: the job's own collectives (a "local"
/// topology calibrated once per run over the MPI ranks; with NCCL or a single rank, `topology`)
/// and compute measured per shape on the job's backend by every rank at once. Collective.
/// Nullopt, with a warning from rank 0, when the calibration cannot fit this machine's timings
/// (a heavily loaded machine can time a large message faster than a small one); then for the
/// rest of the run.
std::optional<double> project_here(StepJob& job, const CasePlan& plan, const std::string& topology);

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

/// What one rank of the plan needs on its device, an estimate made before anything is allocated:
/// TP-local fp32 parameter and gradient buffers, the optimizer state of the fullest rank, and
/// the TP staging (three sets of the largest micro-group's gradient and parameter shards, or of
/// the largest TP-SC gather) and fragment area, 8 fp32 workspace elements per element of the
/// matrices the busiest rank steps, plus 10 %. Coarse: on a CPU it came out at 0.8–2.9 times what
/// the executor allocated (Qwen3-0.6B~d16 and 30B-A3B~d32, Muon, Shampoo, SOAP, 2 ranks).
double estimated_rank_bytes(const CasePlan& plan);

/// Bytes of the gradients RankStepper keeps on the backend to restore before every step (on top
/// of what the executor allocates).
double kept_gradient_bytes(const CasePlan& plan);

/// Memory of one device of the backend: the first GPU's for cuda, 0 (no limit checked) for cpu.
double device_memory_bytes(const std::string& backend);

/// ConfigError unless `topology` names a preset or a readable topology file.
void check_topology(const std::string& topology);

/// The preconditioner refresh interval of an optimizer's default hyper-parameters (1 for Muon):
/// timed windows are whole intervals, so a row's mean is the amortised step. ConfigError for an
/// unknown optimizer.
int default_refresh_interval(const std::string& optimizer);

/// ConfigError unless `strategy` is a registry name or a "<dp>+<tp>" combination.
void check_strategy(const std::string& strategy);

}  // namespace canzona::bench::step
