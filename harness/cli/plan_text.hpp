// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The text view of `canzona-bench plan`, top to bottom: header (model, dp x tp, both strategy
// sides, optimizer, cost, alpha, TP schedule), summary (imbalance, lower bound, hash), the
// per-rank tables, every bucket's cuts, every matrix's owner, and optionally the ZeRO-1 layout.
#pragma once

#include <string>

#include "plan_flags.hpp"
#include "plan_report.hpp"

namespace canzona::harness {

std::string format_plan_text(const PlanReport& report, const PlanViewFlags& view);

}  // namespace canzona::harness
