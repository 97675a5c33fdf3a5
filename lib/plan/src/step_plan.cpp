// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Strategy options (validation, slot capacity) and the fragments a matrix-optimizer parameter is
// stepped as. Plans themselves are built by baselines::make_step_plan.
#include "canzona/plan/step_plan.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <cmath>

namespace canzona::plan {
namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;
constexpr double kFp32Bytes = 4.0;

}  // namespace

std::int64_t slot_capacity_elements(const StrategyOptions& options, int tp) {
  const double per_unit = options.slot_mib * kBytesPerMiB / kFp32Bytes;
  return static_cast<std::int64_t>(
      std::floor(options.slot_unit == SlotUnit::kTpLocal ? per_unit * tp : per_unit));
}

std::string describe_slot(const StrategyOptions& options) {
  if (options.slot_mib <= 0) return "unbounded";
  return fmt::format(
      "{:g} MiB of {}", options.slot_mib,
      options.slot_unit == SlotUnit::kTpLocal ? "TP-local elements" : "full matrices");
}

void validate(const StrategyOptions& options) {
  if (!(options.alpha >= 0.0 && options.alpha <= 1.0)) {
    throw ConfigError(fmt::format("alpha = {} is outside [0, 1] (0: even split, 1: fully balanced)",
                                  options.alpha));
  }
  if (!std::isfinite(options.slot_mib) || options.slot_mib < 0) {
    throw ConfigError(
        fmt::format("slot capacity = {} MiB is invalid; give a finite value >= 0 (0: unbounded)",
                    options.slot_mib));
  }
  const Precision& precision = options.precision;
  const bool params_ok =
      precision.params == comm::DataType::kBFloat16 || precision.params == comm::DataType::kFloat32;
  const bool grads_ok = precision.grad_reduce == comm::DataType::kFloat32 ||
                        precision.grad_reduce == comm::DataType::kBFloat16;
  if (!params_ok || !grads_ok) {
    throw ConfigError(fmt::format(
        "precision: model parameters in {} with gradients reduced in {} is not a Megatron "
        "mode; parameters are bf16 or fp32, gradients fp32 or bf16",
        comm::to_string(precision.params), comm::to_string(precision.grad_reduce)));
  }
  if (precision.params == comm::DataType::kFloat32 &&
      precision.grad_reduce == comm::DataType::kBFloat16) {
    throw ConfigError(
        "precision: gradients reduced in bf16 need bf16 model parameters (Megatron's "
        "--grad-reduce-in-bf16 is a bf16-training option); use --grad-reduce-dtype fp32 or "
        "--param-dtype bf16");
  }
  optim::validate(options.optimizer);
  model::validate(options.split);
}

std::vector<model::Fragment> plan_fragments(const model::ParamSpec& param,
                                            const model::ModelSpec& model,
                                            const model::SplitOptions& split, int tp) {
  std::vector<model::Fragment> fragments = model::split_parameter(param, model, split, tp);
  if (tp > 1 && param.fused == model::FusedKind::kGatedFc1 && !split.fc1) {
    // The TP-gathered fc1 interleaves gate and up per rank; step [gate; up] like tp = 1 does.
    model::Fragment& whole = fragments.at(0);
    whole.rows.clear();
    for (const model::Fragment& half : model::split_fc1(param, model, tp)) {
      whole.rows.insert(whole.rows.end(), half.rows.begin(), half.rows.end());
    }
  }
  return fragments;
}

}  // namespace canzona::plan
