// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What `validate` checks on the optimizer-step suite's rows beyond the JSON format and the names
// (result_checks.hpp): a measured step's phases add up to the step.
#pragma once

#include <canzona/bench/gbench_json.hpp>

#include <optional>
#include <string>

namespace canzona::harness {

/// The family whose rows check_step_row applies to.
inline constexpr std::string_view kOptimizerStepFamily = "OptimizerStep";

/// Empty when `row` (without an error) is well-formed; rows of other families, projected rows
/// (result_checks.hpp checks those) and the stddev, cv and median aggregates (spreads, and
/// medians taken counter by counter) always are. A measured OptimizerStep row (an iteration or
/// the mean of repetitions) has `projected` = 0, and the straggler's phases grad_sync,
/// tp_gather, compute, tp_scatter, param_sync, update and other (its time outside every phase
/// slot), in ms, add up to the step within kPhaseSumTolerance (the suite takes the step and the
/// phases from the same rank's records), other is not negative (slots never overlap), and idle,
/// which is part of the phases, does not exceed them. Otherwise what is wrong. ConfigError for
/// a name that does not parse.
std::optional<std::string> check_step_row(const bench::BenchmarkRow& row);

/// Relative tolerance of the phase sum (averaging and rounding).
inline constexpr double kPhaseSumTolerance = 0.01;
/// Absolute slack for steps of a few milliseconds: the rounding of averaged counters and of a
/// time in the unit of the row.
inline constexpr double kPhaseSumSlackMs = 0.05;

}  // namespace canzona::harness
