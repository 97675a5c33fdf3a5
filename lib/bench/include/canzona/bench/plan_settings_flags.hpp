// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The flags `plan`, `project`, `run` and the optimizer-step suite share to describe a job beyond
// its strategy: --preset and the settings it fixes, which explicit flags override (--bucket-size,
// --cost, --slot-mib, --tp-execution, --param-dtype, --grad-reduce-dtype, --split). A flag that
// cannot take effect for the chosen TP side is an error, never silently ignored.
#pragma once

#include <canzona/core/error.hpp>
#include <canzona/plan/preset.hpp>
#include <canzona/plan/step_plan.hpp>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::bench {

/// Which preset a plan was made with and which flags replaced its values, for the views.
struct PlanSettingsUse {
  plan::Preset preset = plan::Preset::kMegatron;
  std::vector<std::string> overrides;  ///< explicit flags as given, e.g. "--cost flops"
};

class PlanSettingsFlags {
 public:
  /// Declares the flags on `command`; the preset itself as --plan-preset ("--preset" of `run`
  /// and `ab` is the case grid). With `old_name_too`, --preset is accepted as well (plan,
  /// project and the suites' --canzona_plan, where it was the flag's first name).
  explicit PlanSettingsFlags(CLI::App& command, bool old_name_too = true);

  /// The preset; ConfigError naming --preset for an unknown name.
  plan::Preset preset() const;

  /// Applies the preset to `options`, then the explicit flags. With `check_sides` (a command
  /// that plans one strategy, its sides and TP schedule already set) a flag its sides never
  /// read is a ConfigError: --slot-mib needs the canzona TP side with the slot or global
  /// schedule, --tp-execution a TP side with micro-groups (canzona, asc); a command that plans
  /// several strategies applies them where they apply. ConfigError for a bad value.
  void apply(plan::StrategyOptions& options, bool check_sides) const;

  /// The preset and the flags given explicitly.
  PlanSettingsUse use() const;

  /// The preset and the explicit flags as `plan` takes them ("--plan-preset megatron --cost numel"),
  /// what a command hands to another that reads the same flags.
  std::string as_flags() const;

 private:
  std::string preset_flag_;
  std::string preset_ = "megatron";
  std::optional<std::int64_t> bucket_size_;
  std::optional<std::string> cost_;
  std::optional<std::string> dp_balance_;
  std::optional<double> slot_mib_;
  std::optional<std::string> slot_unit_;
  std::optional<std::string> tp_execution_;
  std::optional<std::string> param_dtype_;
  std::optional<std::string> grad_reduce_dtype_;
  std::vector<std::string> split_;
};

/// Runs a parser of the plan library and names the flag in its error, so the message says
/// which flag to fix ("--tp-schedule: unknown micro-group mode 'x'; choose one of ...").
template <typename Parse>
auto parse_flag(std::string_view flag, const std::string& value, Parse&& parse) {
  try {
    return parse(value);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", flag, e.what()));
  }
}

/// The --split values as split options; ConfigError for an unknown part or qkv-per-head alone.
model::SplitOptions parse_split(const std::vector<std::string>& values);

}  // namespace canzona::bench
