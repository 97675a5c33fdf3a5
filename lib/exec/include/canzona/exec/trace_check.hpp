// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Checks what the executor did against what the plan promised: the traces of a rank's DP and TP
// communicators over one step against plan::rank_collectives.
#pragma once

#include <canzona/comm/trace.hpp>
#include <canzona/plan/step_plan.hpp>

#include <string>

namespace canzona::exec {

/// Empty when `dp_trace` and `tp_trace` (everything this rank issued on its DP and TP
/// communicators during one step) equal plan::rank_collectives(plan, dp_rank, tp_rank) entry
/// for entry per group: op, group size, count, root, bytes sent and received, fp32. Otherwise a
/// description of the first difference (group, position, expected, actual).
std::string trace_mismatch(const plan::StepPlan& plan, int dp_rank, int tp_rank,
                           const comm::Trace& dp_trace, const comm::Trace& tp_trace);

}  // namespace canzona::exec
