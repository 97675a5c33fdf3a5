// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_flags.hpp"

#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>

#include <canzona/bench/flag_checks.hpp>

#include <fmt/format.h>

#include <string_view>

namespace canzona::harness {
namespace {

constexpr std::string_view kDefaultStrategy = "canzona";

// Where a side of the strategy came from, for error messages that tell the user which flag to
// change.
std::string side_source(const std::optional<std::string>& side_flag, std::string_view side,
                        const std::string& strategy) {
  if (side_flag) return fmt::format("--{}-strategy {}", side, *side_flag);
  return fmt::format("--strategy {}", strategy);
}

}  // namespace

PlanFlags::PlanFlags(CLI::App& cmd) {
  cmd.add_option("--model", model_, "Catalog name (see 'models') or JSON model spec file")
      ->required();
  cmd.add_option("--dp", dp_, "Data-parallel size")
      ->required()
      ->check(bench::integer_in(bench::kRanks));
  cmd.add_option("--tp", tp_, "Tensor-parallel size")
      ->capture_default_str()
      ->check(bench::integer_in(bench::kRanks));
  cmd.add_option("--gpus", gpus_, "Total GPUs; must equal dp x tp when given")
      ->check(bench::integer_in(bench::kRanks));
  cmd.add_option("--gpus-per-node", gpus_per_node_, "GPUs per node (TP stays inside one)")
      ->capture_default_str()
      ->check(bench::integer_in(bench::kRanks));

  const std::vector<std::string_view> names = baselines::strategy_names();
  cmd.add_option("--strategy", strategy_,
                 fmt::format("DP x TP strategy: {} or <dp>+<tp> (default {})",
                             fmt::join(names, ", "), kDefaultStrategy));
  cmd.add_option("--dp-strategy", dp_strategy_,
                 "DP side, replacing the one --strategy sets: canzona, static, sc, layerwise, "
                 "layerwise-roundrobin, layerwise-lpt");
  cmd.add_option("--tp-strategy", tp_strategy_,
                 "TP side, replacing the one --strategy sets: canzona, asc, sc");
  cmd.add_option("--alpha", alpha_,
                 "Canzona DP balance in [0, 1]: 0 = even split, 1 = deficit-proportional "
                 "(default 1)")
      ->check(bench::real_in(bench::kUnitInterval));
  cmd.add_option("--tp-schedule", tp_schedule_,
                 "Canzona TP micro-groups: no, single, slot or global (default global)");
  cmd.add_option("--transport", transport_,
                 "TP shard transport: all-to-all or gather-scatter (default all-to-all)");
  cmd.add_flag("--high-busbw-padding", high_busbw_padding_,
               "Pad buckets to lcm(dp, 128, 65536) as Megatron's pad_buckets_for_high_nccl_busbw");
  preset_ = std::make_unique<bench::PlanSettingsFlags>(cmd);
  optimizer_ = std::make_unique<OptimizerFlags>(cmd, std::string("muon"));

  cmd.add_flag("--all-ranks", view_.all_ranks,
               "Print every rank row (large jobs show the busiest and least busy ranks only)");
  cmd.add_flag("--layout", view_.layout, "Also print the ZeRO-1 buffer layout (buckets, slices)");
  cmd.add_flag("--verbose", view_.verbose,
               "Layout view with every parameter and the ranks it spans (implies --layout)");
  cmd.add_flag("--json", view_.json, "Print JSON instead of text");
}

layout::ParallelConfig PlanFlags::parallel_config(const model::ModelSpec& model) const {
  layout::ParallelConfig config;
  config.dp = dp_;
  config.tp = tp_;
  config.gpus_per_node = gpus_per_node_;
  layout::validate(config, model);
  if (gpus_) layout::validate_world(config, *gpus_);
  return config;
}

plan::StrategyOptions PlanFlags::strategy_options() const {
  if (strategy_ && dp_strategy_ && tp_strategy_) {
    throw ConfigError(fmt::format(
        "--strategy {} has no effect when both --dp-strategy and --tp-strategy are given; drop "
        "--strategy or one of the side flags",
        *strategy_));
  }
  const std::string strategy = strategy_.value_or(std::string(kDefaultStrategy));

  plan::StrategyOptions options;
  baselines::apply_strategy(strategy, options);  // ConfigError listing the names
  if (dp_strategy_) {
    options.dp = bench::parse_flag("--dp-strategy", *dp_strategy_, plan::parse_dp_strategy);
  }
  if (tp_strategy_) {
    options.tp = bench::parse_flag("--tp-strategy", *tp_strategy_, plan::parse_tp_strategy);
  }

  // Tuning flags that the chosen sides never read are errors rather than silently ignored.
  if (alpha_) {
    if (options.dp != plan::DpStrategy::kCanzona) {
      throw ConfigError(fmt::format(
          "--alpha applies to the canzona DP strategy only, but the DP side is '{}' (from {})",
          plan::to_string(options.dp), side_source(dp_strategy_, "dp", strategy)));
    }
    options.alpha = *alpha_;
  }
  if (tp_schedule_) {
    if (options.tp != plan::TpStrategy::kCanzona) {
      throw ConfigError(fmt::format(
          "--tp-schedule applies to the canzona TP strategy only, but the TP side is '{}' (from "
          "{})",
          plan::to_string(options.tp), side_source(tp_strategy_, "tp", strategy)));
    }
    options.tp_schedule =
        bench::parse_flag("--tp-schedule", *tp_schedule_, plan::parse_micro_group_mode);
  }
  if (transport_) {
    if (options.tp == plan::TpStrategy::kReplicated) {
      throw ConfigError(fmt::format(
          "--transport applies to the canzona and asc TP strategies; the TP side is 'sc' (from "
          "{}), which all-gathers every matrix on every TP rank",
          side_source(tp_strategy_, "tp", strategy)));
    }
    options.transport = bench::parse_flag("--transport", *transport_, plan::parse_tp_transport);
  }
  preset_->apply(options, /*check_sides=*/true);
  options.optimizer = optimizer_->spec(options.optimizer);
  options.zero1.pad_for_high_nccl_busbw = high_busbw_padding_;
  plan::validate(options);
  return options;
}

}  // namespace canzona::harness
