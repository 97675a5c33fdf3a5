// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "suite_options.hpp"

#include "suite_flags.hpp"

#include <canzona/bench/presets.hpp>

namespace canzona::bench::step {
SuiteOptions read_suite_options() {
  SuiteOptions o;
  o.backend = suite_backend_flag();
  // The preset's grid (lib/bench), or the suite's own; each flag given replaces one list.
  const StepGridSpec defaults = step_suite_grid(suite_text_flag("preset", ""), o.backend);
  CaseGrid& g = o.grid;
  g.optimizers = suite_list_flag("optimizers", defaults.optimizers);
  g.strategies = suite_list_flag("strategies", defaults.strategies);
  g.models = suite_list_flag("models", defaults.models);
  g.projected_models = suite_list_flag("projected_models", defaults.projected_models);
  g.projected_gpus = suite_whole_list_flag("projected_gpus", defaults.projected_gpus, 1);
  g.projected_tp = suite_whole_flag("projected_tp", 8, 1);
  g.gpus_per_node = suite_whole_flag("gpus_per_node", 8, 1);
  o.warmup = suite_whole_flag("warmup", 2, 0);
  o.seed = static_cast<std::uint64_t>(suite_whole_flag("seed", 1, 0));
  o.plan = std::make_shared<const PlanSettings>(suite_text_flag("plan", ""));
  o.topology = suite_text_flag("topology", "dgx-h100");
  o.projector = suite_whole_flag("projector", 1, 0) != 0;
  o.fail_rank = suite_whole_flag("inject_failure", -1, -1);
  o.slowdown = suite_flag("inject_slowdown", RealRange{0, 10}).value_or(0);
  return o;
}

}  // namespace canzona::bench::step
