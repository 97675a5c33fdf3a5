// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What `validate` checks on the end-to-end suite's rows beyond the JSON format and the names
// (result_checks.hpp): a measured iteration's counters are the relations the suite defines.
#pragma once

#include <canzona/bench/gbench_json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace canzona::harness {

/// The family whose rows check_e2e_row applies to.
inline constexpr std::string_view kE2EIterationFamily = "E2EIteration";

/// Empty when `row` (without an error) is well-formed; rows of other families, projected rows
/// and the stddev, cv and median aggregates always are. A measured E2EIteration row (an
/// iteration or the mean of repetitions) has `projected` = 0 and, in ms within the phase-sum
/// tolerance of step_row_check.hpp: iteration_ms is the row's time; the straggler's forward_ms,
/// backward_ms, step_ms and other_ms (not negative) add up to it; optimizer_exposed_ms is
/// iteration_ms minus grad_sync_only_ms (the same iteration with the gradient sync alone in
/// place of the optimizer step); and, in a single repetition, tokens_per_s is tokens per
/// iteration_ms (a mean of rates is not the rate of the mean). Otherwise what is wrong.
/// ConfigError for a name that does not parse.
std::optional<std::string> check_e2e_row(const bench::BenchmarkRow& row);

}  // namespace canzona::harness
