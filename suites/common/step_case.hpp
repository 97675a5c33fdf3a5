// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cases of the optimizer-step suite and their benchmark names:
//   OptimizerStep/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>             measured
//   OptimizerStep/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>/projected   projected
#pragma once

#include <canzona/bench/benchmark_name.hpp>

#include <string>
#include <vector>

namespace canzona::bench::step {

/// One row of the suite: optimizer ("muon", "shampoo", "soap"; AdamW steps the other
/// parameters), strategy (registry name or "<dp>+<tp>"), model (catalog name, possibly scaled:
/// "qwen3-8b~d32"), (dp, tp), measured or projected.
using StepCase = DistributedCase;

/// The benchmark name of a case (see the file comment).
inline std::string benchmark_name(const StepCase& c) { return optimizer_step_name(c); }

/// What the suite registers, as read from its flags (suite_options.cpp).
struct CaseGrid {
  std::vector<std::string> optimizers;
  std::vector<std::string> strategies;
  std::vector<std::string> models;            ///< measured rows
  std::vector<std::string> projected_models;  ///< projected rows
  std::vector<int> projected_gpus;            ///< GPU counts of projected rows
  int projected_tp = 8;  ///< projected rows use the largest valid TP degree up to this
  int gpus_per_node = 8;
};

/// Measured rows for a job of `ranks` ranks: every optimizer × strategy × model × (dp, tp) with
/// dp·tp = ranks and tp a valid TP degree of the model (at most gpus_per_node), in that
/// nesting order. ConfigError for an unknown model.
std::vector<StepCase> measured_cases(const CaseGrid& grid, int ranks);

/// Projected rows: every optimizer × strategy × projected model × GPU count above `ranks` (the
/// ranks present are measured instead) that the model's largest valid TP degree up to
/// projected_tp divides.
std::vector<StepCase> projected_cases(const CaseGrid& grid, int ranks);

}  // namespace canzona::bench::step
