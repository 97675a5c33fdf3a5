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

std::int64_t slot_capacity_elements(const StrategyOptions& options) {
  return static_cast<std::int64_t>(std::floor(options.slot_mib * kBytesPerMiB / kFp32Bytes));
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
