// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/bench/plan_settings_flags.hpp>

#include <canzona/bench/flag_checks.hpp>

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::bench {

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

PlanSettingsFlags::PlanSettingsFlags(CLI::App& cmd, bool old_name_too)
    : preset_flag_("--plan-preset") {
  cmd.add_option(old_name_too ? "--plan-preset,--preset" : "--plan-preset", preset_,
                 fmt::format("Settings bundle, overridden by explicit flags: {} (megatron: "
                             "Megatron-LM defaults; canzona-reference: the Canzona reference "
                             "training script){}",
                             fmt::join(plan::preset_names(), ", "),
                             old_name_too ? "; --preset is its old name" : ""))
      ->capture_default_str();
  cmd.add_option("--bucket-size", bucket_size_,
                 "ZeRO-1 bucket size in elements (megatron: max(4e7, 1e6 x dp); "
                 "canzona-reference: 4e8)")
      ->check(integer_in(kAtLeastOne));
  cmd.add_option("--cost", cost_,
                 "What partitions balance and metrics report: numel or flops (megatron: flops; "
                 "canzona-reference: numel)");
  cmd.add_option("--dp-balance", dp_balance_,
                 "Canzona DP partition: refined (greedy, local search and contiguous search) or "
                 "greedy (the reference's plain greedy) (megatron: refined; canzona-reference: "
                 "greedy)");
  cmd.add_option("--slot-mib", slot_mib_,
                 "Canzona TP slot capacity, MiB of fp32 full-matrix elements per host and "
                 "micro-group, 0 = unbounded (megatron: 0; canzona-reference: 1600 = 400 x 2^20 "
                 "elements)")
      ->check(real_in(kNonNegative));
  cmd.add_option("--slot-unit", slot_unit_,
                 "What --slot-mib counts: full (elements of the full matrices a slot hosts) or "
                 "tp-local (their shards on one TP rank, as the reference's fuse space) "
                 "(megatron: full; canzona-reference: tp-local)");
  cmd.add_option("--tp-execution", tp_execution_,
                 "TP micro-groups: pipelined (next gather in flight while a group computes) or "
                 "serial (gather, compute, scatter one group at a time, as the reference code) "
                 "(megatron: pipelined; canzona-reference: serial)");
  cmd.add_option("--param-dtype", param_dtype_,
                 "Model parameters in the ZeRO-1 buffer and the parameter all-gather: bf16 "
                 "(with fp32 main parameters on the owner) or fp32 (default bf16)");
  cmd.add_option("--grad-reduce-dtype", grad_reduce_dtype_,
                 "Gradient buffer and reduction: fp32 (Megatron's bf16 default) or bf16 "
                 "(--grad-reduce-in-bf16) (default fp32)");
  cmd.add_option("--split", split_,
                 "Split fused matrices for the optimizer: qkv, qkv-per-head (with qkv), fc1; "
                 "repeat or give a comma list (default: none)")
      ->delimiter(',');
}

plan::Preset PlanSettingsFlags::preset() const {
  return parse_flag(preset_flag_, preset_, plan::parse_preset);
}

void PlanSettingsFlags::apply(plan::StrategyOptions& options, bool check_sides) const {
  plan::apply_preset(preset(), options);
  const bool canzona_tp = options.tp == plan::TpStrategy::kCanzona;
  const bool grouped_tp = options.tp != plan::TpStrategy::kReplicated;
  if (check_sides && slot_mib_ && !canzona_tp) {
    throw ConfigError(
        fmt::format("--slot-mib applies to the canzona TP strategy only, but the TP side is '{}'",
                    plan::to_string(options.tp)));
  }
  if (check_sides && slot_mib_ && options.tp_schedule != plan::MicroGroupMode::kSlot &&
      options.tp_schedule != plan::MicroGroupMode::kGlobal) {
    throw ConfigError(fmt::format(
        "--slot-mib applies to --tp-schedule slot or global, not '{}' (whose micro-groups hold "
        "one matrix per host)",
        plan::to_string(options.tp_schedule)));
  }
  if (check_sides && slot_unit_ && !canzona_tp) {
    throw ConfigError(
        fmt::format("--slot-unit applies to the canzona TP strategy only, but the TP side is '{}'",
                    plan::to_string(options.tp)));
  }
  if (check_sides && tp_execution_ && !grouped_tp) {
    throw ConfigError(
        "--tp-execution applies to TP sides with micro-groups (canzona, asc), but the TP side "
        "is 'sc', which all-gathers every matrix on every TP rank");
  }
  if (bucket_size_) options.zero1.bucket_size = *bucket_size_;
  if (cost_) options.cost = parse_flag("--cost", *cost_, plan::parse_cost_kind);
  if (dp_balance_) {
    options.dp_balance = parse_flag("--dp-balance", *dp_balance_, plan::parse_dp_balance);
  }
  if (slot_mib_) options.slot_mib = *slot_mib_;
  if (slot_unit_) options.slot_unit = parse_flag("--slot-unit", *slot_unit_, plan::parse_slot_unit);
  if (tp_execution_) {
    options.tp_execution = parse_flag("--tp-execution", *tp_execution_, plan::parse_tp_execution);
  }
  if (param_dtype_) {
    options.precision.params = plan::parse_dtype(*param_dtype_, "--param-dtype");
  }
  if (grad_reduce_dtype_) {
    options.precision.grad_reduce = plan::parse_dtype(*grad_reduce_dtype_, "--grad-reduce-dtype");
  }
  if (!split_.empty()) options.split = parse_split(split_);
}

PlanSettingsUse PlanSettingsFlags::use() const {
  PlanSettingsUse use;
  use.preset = preset();
  if (bucket_size_) use.overrides.push_back(fmt::format("--bucket-size {}", *bucket_size_));
  if (cost_) use.overrides.push_back(fmt::format("--cost {}", *cost_));
  if (dp_balance_) use.overrides.push_back(fmt::format("--dp-balance {}", *dp_balance_));
  if (slot_mib_) use.overrides.push_back(fmt::format("--slot-mib {:g}", *slot_mib_));
  if (slot_unit_) use.overrides.push_back(fmt::format("--slot-unit {}", *slot_unit_));
  if (tp_execution_) use.overrides.push_back(fmt::format("--tp-execution {}", *tp_execution_));
  if (param_dtype_) use.overrides.push_back(fmt::format("--param-dtype {}", *param_dtype_));
  if (grad_reduce_dtype_) {
    use.overrides.push_back(fmt::format("--grad-reduce-dtype {}", *grad_reduce_dtype_));
  }
  if (!split_.empty()) use.overrides.push_back(fmt::format("--split {}", fmt::join(split_, ",")));
  return use;
}

std::string PlanSettingsFlags::as_flags() const {
  const PlanSettingsUse given = use();
  std::string flags = fmt::format("--plan-preset {}", plan::to_string(given.preset));
  for (const std::string& flag : given.overrides) flags += " " + flag;
  return flags;
}

}  // namespace canzona::bench
