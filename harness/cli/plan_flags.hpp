// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The flags of `canzona-bench plan` and how they turn into a parallel config and the
// StrategyOptions of one StepPlan. Precedence of the strategy flags (README, "plan"):
//   1. --strategy NAME sets both sides from the registry (default: canzona);
//   2. --dp-strategy / --tp-strategy replace the side they name.
// Giving both side flags and --strategy is an error (the name would have no effect), and so is a
// tuning flag that the chosen sides never read (--alpha without the canzona DP side, say):
// nothing is silently ignored.
#pragma once

#include <canzona/layout/parallel_config.hpp>
#include <canzona/plan/step_plan.hpp>

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <canzona/bench/plan_settings_flags.hpp>
#include "optimizer_flags.hpp"

namespace canzona::harness {

/// What the text and JSON views show besides the plan itself.
struct PlanViewFlags {
  bool json = false;
  bool all_ranks = false;  ///< every rank row, even on large jobs
  bool layout = false;     ///< append the ZeRO-1 buffer layout (the old `--strategy zero1` view)
  bool verbose = false;    ///< layout view with every parameter (implies layout)
};

class PlanFlags {
 public:
  /// Declares every plan flag on `command`.
  explicit PlanFlags(CLI::App& command);

  const std::string& model() const { return model_; }
  const PlanViewFlags& view() const { return view_; }

  /// dp, tp and GPUs per node, checked against the model and --gpus. ConfigError otherwise.
  layout::ParallelConfig parallel_config(const model::ModelSpec& model) const;

  /// The strategy options the flags describe, after the precedence above and the preset with
  /// its overrides; validated. ConfigError for an unknown name, a conflicting combination or a
  /// value out of range.
  plan::StrategyOptions strategy_options() const;

  /// The preset and the flags that overrode it.
  bench::PlanSettingsUse preset_use() const { return preset_->use(); }

 private:
  std::string model_;
  int dp_ = 0;
  int tp_ = 1;
  std::optional<int> gpus_;
  int gpus_per_node_ = 8;
  std::optional<std::string> strategy_, dp_strategy_, tp_strategy_;
  std::optional<double> alpha_;
  std::optional<std::string> tp_schedule_, transport_;
  bool high_busbw_padding_ = false;
  std::unique_ptr<bench::PlanSettingsFlags> preset_;
  std::unique_ptr<OptimizerFlags> optimizer_;
  PlanViewFlags view_;
};

}  // namespace canzona::harness
