// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Presets: named bundles of the settings that decide what a plan moves and computes, so that
// `plan`, `project` and the suites describe the same job the same way. A preset sets defaults;
// explicit flags override them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {

enum class Preset {
  /// Megatron-LM's defaults: buckets of max(4e7, 1e6·dp) elements, bf16 parameters with fp32
  /// gradients and main parameters, no splits; balancing on our optimizer's FLOPs, unbounded
  /// TP micro-groups run pipelined; the optimizer's own defaults ("megatron", the default).
  kMegatron,
  /// The Canzona reference code's training script with Canzona on (Megatron-Canzona
  /// scripts/canzona/train.sh): 4e8-element buckets, numel costs for DP and TP, the plain §3.3
  /// DP greedy (DpBalance::kReferenceGreedy), a TP fuse
  /// capacity of 400·2²⁰ TP-local elements per slot (SlotUnit::kTpLocal), its serial micro-group
  /// executor, Muon with the
  /// simple coefficients and without Nesterov (the script passes no --nesterov-acceleration),
  /// no splits, bf16 parameters with fp32 gradients ("canzona-reference").
  kCanzonaReference,
};

std::string_view to_string(Preset preset);  ///< "megatron", "canzona-reference"
/// Inverse of to_string; ConfigError listing the presets otherwise.
Preset parse_preset(std::string_view text);
std::vector<std::string_view> preset_names();

/// Sets every setting `preset` fixes in `options` (zero1.bucket_size, cost, slot_mib,
/// tp_execution, precision, split; canzona-reference also optimizer.muon.coefficients and
/// .nesterov); the rest is left as it is. Apply it first and explicit flags after.
void apply_preset(Preset preset, StrategyOptions& options);

/// Where the preset's values come from, one line.
std::string_view preset_source(Preset preset);

}  // namespace canzona::plan
