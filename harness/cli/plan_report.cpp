// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_report.hpp"

#include <fmt/format.h>

namespace canzona::harness {

std::string hash_hex(std::uint64_t hash) { return fmt::format("{:016x}", hash); }

double mean_distinct_cost(const PlanReport& report) {
  double total = 0;
  for (const plan::MatrixPlan& m : report.plan.matrices) total += m.cost;
  const int ranks = report.plan.dp() * report.plan.tp();
  return ranks > 0 ? total / ranks : 0;
}

}  // namespace canzona::harness
