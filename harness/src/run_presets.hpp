// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The presets of `canzona-bench run`: which optimizer-step and end-to-end cases, how many
// repetitions, how many ranks, for the machine it runs on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

/// What a preset runs. The cases are the product the suite registers from `suite_flags`
/// (optimizers × strategies × models × the (dp, tp) of the job, then projected rows).
struct RunPreset {
  std::string name;
  int ranks = 2;                         ///< default --ranks
  int repetitions = 3;                   ///< --benchmark_repetitions
  double min_time = 0;                   ///< --benchmark_min_time, seconds per repetition (a floor)
  std::vector<std::string> suite_flags;  ///< --canzona_<name>=<value> of the optimizer-step suite
  /// --canzona_<name>=<value> of the end-to-end suite; empty: the preset has no E2EIteration rows
  std::vector<std::string> e2e_flags;
  std::string description;
};

/// "smoke", "nightly", "paper".
std::vector<std::string> run_preset_names();

/// The preset `name` for `backend` ("cpu" or "cuda") on a machine with `gpus` CUDA devices.
/// ConfigError listing the presets for an unknown name.
RunPreset run_preset(std::string_view name, const std::string& backend, int gpus);

}  // namespace canzona::harness
