// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/plan/preset.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::plan {
namespace {

// Megatron-Canzona's --tp-balanced-opt-fuse-space 400 is 400·2²⁰ elements per slot; the plan
// states slots in MiB of fp32 elements.
constexpr double kReferenceSlotMib = 400.0 * 4.0;
constexpr std::int64_t kReferenceBucketElements = 400'000'000;

}  // namespace

std::string_view to_string(Preset preset) {
  return preset == Preset::kCanzonaReference ? "canzona-reference" : "megatron";
}

std::vector<std::string_view> preset_names() { return {"megatron", "canzona-reference"}; }

Preset parse_preset(std::string_view text) {
  if (text == "megatron") return Preset::kMegatron;
  if (text == "canzona-reference") return Preset::kCanzonaReference;
  throw ConfigError(
      fmt::format("unknown preset '{}'; choose one of: {}", text, fmt::join(preset_names(), ", ")));
}

void apply_preset(Preset preset, StrategyOptions& options) {
  options.precision = Precision{};
  options.split = model::SplitOptions{};
  if (preset == Preset::kMegatron) {
    options.zero1.bucket_size = 0;  // max(4e7, 1e6·dp)
    options.cost = CostKind::kFlops;
    options.dp_balance = DpBalance::kRefined;
    options.slot_mib = 0;
    options.slot_unit = SlotUnit::kFullMatrix;
    options.tp_execution = TpExecution::kPipelined;
    return;
  }
  options.optimizer.muon.coefficients = optim::NsCoefficients::kSimple;
  options.zero1.bucket_size = kReferenceBucketElements;
  options.cost = CostKind::kNumel;
  options.dp_balance = DpBalance::kReferenceGreedy;
  options.slot_mib = kReferenceSlotMib;
  options.slot_unit = SlotUnit::kTpLocal;
  options.tp_execution = TpExecution::kSerial;
  options.optimizer.muon.nesterov = false;
}

std::string_view preset_source(Preset preset) {
  if (preset == Preset::kMegatron) {
    return "Megatron-LM defaults (DDP bucket size max(4e7, 1e6·dp), --bf16 with "
           "--accumulate-allreduce-grads-in-fp32) and this project's FLOP costs";
  }
  return "Megatron-Canzona scripts/canzona/train.sh with Canzona on: --ddp-bucket-size 4e8, "
         "DP/TP_BALANCED_OPT_COST numel and its plain DP greedy, TP_BALANCED_OPT_FUSE_SPACE 400 (x "
         "2^20 TP-local elements), "
         "serial AsyncGroupExecutor, simple NS coefficients, no --nesterov-acceleration, no "
         "splits, --bf16";
}

}  // namespace canzona::plan
