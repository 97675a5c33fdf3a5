// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The case grids, in one table: what the optimizer-step and end-to-end suites register by
// default, and the presets of `canzona-bench run` (smoke, nightly, paper). `run` hands a suite
// `--canzona_preset=<name>`; the suite reads the preset's grid here and applies its own flags on
// top, so a grid is never spelled twice.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::bench {

/// The optimizer-step grid, as the suites' flags take it (comma-separated lists): the rows
/// measured on the job's ranks and the rows projected beyond them.
struct StepGridSpec {
  std::string optimizers;
  std::string strategies;
  std::string models;            ///< measured rows
  std::string projected_models;  ///< projected rows
  std::string projected_gpus;    ///< GPU counts of projected rows
};

/// The end-to-end grid: the step grid's cases at each run shape (sequence length × micro-batch),
/// projected rows at one shape.
struct E2EGridSpec {
  StepGridSpec step;
  std::string seq;
  std::string mbs;
  int projected_seq = 2048;
  int projected_mbs = 4;
};

/// What a preset of `run` runs.
struct RunPreset {
  std::string name;
  int ranks = 2;                   ///< default --ranks
  int repetitions = 3;             ///< --benchmark_repetitions
  double min_time = 0;             ///< --benchmark_min_time, seconds per repetition (a floor)
  StepGridSpec step;               ///< the optimizer-step suite's grid
  std::optional<E2EGridSpec> e2e;  ///< the end-to-end suite's grid; none: no E2EIteration rows
  std::string description;
};

/// "smoke", "nightly", "paper".
std::vector<std::string> run_preset_names();

/// The preset `name` for `backend` ("cpu" or "cuda") on a machine with `gpus` CUDA devices.
/// ConfigError listing the presets for an unknown name.
RunPreset run_preset(std::string_view name, const std::string& backend, int gpus);

/// The optimizer-step suite's grid for `backend`: preset `preset`'s, or with "" the suite's own
/// default (every optimizer, strategy and node-sized shape, every projected model at 8-1024
/// GPUs). ConfigError for an unknown preset.
StepGridSpec step_suite_grid(std::string_view preset, const std::string& backend);

/// The end-to-end suite's grid for `backend`: preset `preset`'s, or with "" the suite's own
/// default. ConfigError for an unknown preset or one without end-to-end rows.
E2EGridSpec e2e_suite_grid(std::string_view preset, const std::string& backend);

}  // namespace canzona::bench
