// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The JSON view of `canzona-bench plan`: everything the text view shows plus every collective
// of every rank. Keys come in a fixed order (ordered_json, insertion order), so the output of a
// plan is byte-for-byte reproducible and diffs cleanly. Schema: README, "plan".
#pragma once

#include <nlohmann/json.hpp>

#include "plan_report.hpp"

namespace canzona::harness {

nlohmann::ordered_json plan_json(const PlanReport& report);

}  // namespace canzona::harness
