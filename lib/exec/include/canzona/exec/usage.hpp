// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The "no silent fallback" record (DESIGN §3): which optimizer ran on which parameter (or
// matrix fragment), and how often, on this rank. Counted where the optimizer actually runs.
#pragma once

#include <canzona/optim/options.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace canzona::exec {

/// Number of optim::OptimizerKind values (muon, shampoo, soap, adamw).
inline constexpr std::size_t kOptimizerKinds = 4;

/// What ran on one matrix fragment (matrix >= 0) or one AdamW parameter (matrix == -1) on this
/// rank. Counters are indexed by optim::OptimizerKind, so a parameter that got the wrong
/// optimizer shows up as a nonzero count in the wrong column.
struct OptimizerUsage {
  std::size_t param_index = 0;  ///< into StepPlan::layout.params
  std::string name;             ///< fragment name (matrices) or parameter name (AdamW)
  int matrix = -1;              ///< StepPlan::matrices index, -1 for an AdamW parameter
  int fragment = -1;            ///< MatrixPlan::fragments index, -1 for an AdamW parameter
  /// Optimizer calls that covered it in the last step(), per kind. A matrix fragment counts
  /// one per step of its state; an AdamW parameter one per AdamW slice that overlaps it.
  std::array<std::int64_t, kOptimizerKinds> steps{};
  /// Elements of it stepped in the last step(), per kind.
  std::array<std::int64_t, kOptimizerKinds> elements{};
  /// Calls of any kind since the executor was built.
  std::int64_t total_steps = 0;

  std::int64_t steps_of(optim::OptimizerKind kind) const {
    return steps[static_cast<std::size_t>(kind)];
  }
  std::int64_t elements_of(optim::OptimizerKind kind) const {
    return elements[static_cast<std::size_t>(kind)];
  }
};

}  // namespace canzona::exec
