// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What `validate` checks on the optimizer-step suite's rows beyond the JSON format: the name
// parses, measured and projected rows cannot be mistaken for each other, and a measured step's
// phases add up to the step.
#pragma once

#include <canzona/harness/gbench_json.hpp>

#include <optional>
#include <string>

namespace canzona::harness {

/// The family whose rows check_step_row applies to.
inline constexpr std::string_view kOptimizerStepFamily = "OptimizerStep";

/// Empty when `row` (of family OptimizerStep, without an error) is well-formed:
///  - the name parses (benchmark_name.hpp); nothing else is checked for the stddev and cv
///    aggregates, whose counters are spreads;
///  - counter `projected` is 1 exactly for names ending in /projected, 0 otherwise, and a
///    projected row's label starts with "projected topology=<name>";
///  - for a measured row (an iteration or the mean of repetitions), the straggler's phases
///    grad_sync, tp_gather, compute, tp_scatter, param_sync, update and other (its time outside
///    every phase slot), in ms, add up to the step within kPhaseSumTolerance (the suite takes the
///    step and the phases from the same rank's records), other is not negative (slots never
///    overlap), and idle, which is part of the phases, does not exceed them.
/// Otherwise what is wrong.
std::optional<std::string> check_step_row(const BenchmarkRow& row);

/// Relative tolerance of the phase sum (averaging and rounding).
inline constexpr double kPhaseSumTolerance = 0.01;

}  // namespace canzona::harness
