// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A case's StepPlan, built once through the strategy registry (baselines/) with the run's plan
// settings, and what the plan says about itself (hash, options, imbalance, bytes, state). The
// optimizer-step and end-to-end suites both run their cases on these plans.
#pragma once

#include "step_case.hpp"

#include <canzona/plan/step_plan.hpp>

#include <array>
#include <memory>
#include <string>

namespace canzona::bench::step {

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
  /// The preset and the explicit flags, spelled as `plan` takes them ("--plan-preset megatron").
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

/// The StepPlan of a case (for a suite that runs more than the optimizer step around it).
const plan::StepPlan& step_plan(const CasePlan& plan);

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

/// The preconditioner refresh interval of an optimizer's default hyper-parameters (1 for Muon):
/// timed windows are whole intervals, so a row's mean is the amortised step. ConfigError for an
/// unknown optimizer.
int default_refresh_interval(const std::string& optimizer);

/// ConfigError unless `strategy` is a registry name or a "<dp>+<tp>" combination.
void check_strategy(const std::string& strategy);

}  // namespace canzona::bench::step
