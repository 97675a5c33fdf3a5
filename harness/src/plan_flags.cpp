// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_flags.hpp"

#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>

#include "flag_checks.hpp"

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

model::SplitOptions parse_split(const std::vector<std::string>& values) {
  model::SplitOptions split;
  for (const std::string& value : values) {
    if (value == "qkv") {
      split.qkv = true;
    } else if (value == "qkv-per-head") {
      split.qkv_per_head = true;
    } else if (value == "fc1") {
      split.fc1 = true;
    } else {
      throw ConfigError(
          fmt::format("unknown --split '{}'; available: qkv, qkv-per-head, fc1 (repeat the flag "
                      "or give a comma list)",
                      value));
    }
  }
  // Per-head fragments are cut out of the q, k and v split; asking for them alone is more
  // likely a typo than a request for an implied qkv split, so it is refused.
  if (split.qkv_per_head && !split.qkv) {
    throw ConfigError(
        "--split qkv-per-head needs --split qkv as well (per-head fragments are cut "
        "from the q, k and v matrices); use --split qkv,qkv-per-head");
  }
  return split;
}

// Runs a parser of the plan library and names the flag in its error, so the message says which
// flag to fix ("--tp-schedule: unknown micro-group mode 'x'; choose one of ...").
template <typename Parse>
auto parse_flag(std::string_view flag, const std::string& value, Parse&& parse) {
  try {
    return parse(value);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", flag, e.what()));
  }
}

}  // namespace

PlanFlags::PlanFlags(CLI::App& cmd) {
  cmd.add_option("--model", model_, "Catalog name (see 'models') or JSON model spec file")
      ->required();
  cmd.add_option("--dp", dp_, "Data-parallel size")->required()->check(integer_in(kRanks));
  cmd.add_option("--tp", tp_, "Tensor-parallel size")
      ->capture_default_str()
      ->check(integer_in(kRanks));
  cmd.add_option("--gpus", gpus_, "Total GPUs; must equal dp x tp when given")
      ->check(integer_in(kRanks));
  cmd.add_option("--gpus-per-node", gpus_per_node_, "GPUs per node (TP stays inside one)")
      ->capture_default_str()
      ->check(integer_in(kRanks));

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
      ->check(real_in(kUnitInterval));
  cmd.add_option("--cost", cost_,
                 "What partitions balance and metrics report: numel or flops "
                 "(default flops)");
  cmd.add_option("--tp-schedule", tp_schedule_,
                 "Canzona TP micro-groups: no, single, slot or global (default global)");
  cmd.add_option("--slot-mib", slot_mib_,
                 "Canzona TP slot capacity, MiB of fp32 full-matrix elements per host and "
                 "micro-group (slot/global schedules; default 0 = unbounded)")
      ->check(real_in(kNonNegative));
  cmd.add_option("--transport", transport_,
                 "TP shard transport: all-to-all or gather-scatter (default all-to-all)");
  cmd.add_option("--split", split_,
                 "Split fused matrices for the optimizer: qkv, qkv-per-head (with qkv), fc1; "
                 "repeat or give a comma list")
      ->delimiter(',');
  cmd.add_option("--bucket-size", bucket_size_,
                 "ZeRO-1 bucket size in elements (default: Megatron's max(4e7, 1e6 x dp))")
      ->check(integer_in(kAtLeastOne));
  cmd.add_flag("--high-busbw-padding", high_busbw_padding_,
               "Pad buckets to lcm(dp, 128, 65536) as Megatron's pad_buckets_for_high_nccl_busbw");
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
    options.dp = parse_flag("--dp-strategy", *dp_strategy_, plan::parse_dp_strategy);
  }
  if (tp_strategy_) {
    options.tp = parse_flag("--tp-strategy", *tp_strategy_, plan::parse_tp_strategy);
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
  if (tp_schedule_ || slot_mib_) {
    if (options.tp != plan::TpStrategy::kCanzona) {
      throw ConfigError(fmt::format(
          "{} applies to the canzona TP strategy only, but the TP side is '{}' (from {})",
          tp_schedule_ ? "--tp-schedule" : "--slot-mib", plan::to_string(options.tp),
          side_source(tp_strategy_, "tp", strategy)));
    }
  }
  if (tp_schedule_) {
    options.tp_schedule = parse_flag("--tp-schedule", *tp_schedule_, plan::parse_micro_group_mode);
  }
  if (slot_mib_) {
    if (options.tp_schedule != plan::MicroGroupMode::kSlot &&
        options.tp_schedule != plan::MicroGroupMode::kGlobal) {
      throw ConfigError(fmt::format(
          "--slot-mib applies to --tp-schedule slot or global, not '{}' (whose micro-groups hold "
          "one matrix per host)",
          plan::to_string(options.tp_schedule)));
    }
    options.slot_mib = *slot_mib_;
  }
  if (transport_) {
    if (options.tp == plan::TpStrategy::kReplicated) {
      throw ConfigError(fmt::format(
          "--transport applies to the canzona and asc TP strategies; the TP side is 'sc' (from "
          "{}), which all-gathers every matrix on every TP rank",
          side_source(tp_strategy_, "tp", strategy)));
    }
    options.transport = parse_flag("--transport", *transport_, plan::parse_tp_transport);
  }
  if (cost_) options.cost = parse_flag("--cost", *cost_, plan::parse_cost_kind);
  options.split = parse_split(split_);
  options.optimizer = optimizer_->spec();
  options.zero1.bucket_size = bucket_size_;
  options.zero1.pad_for_high_nccl_busbw = high_busbw_padding_;
  plan::validate(options);
  return options;
}

}  // namespace canzona::harness
