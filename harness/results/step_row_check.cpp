// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_row_check.hpp"

#include <canzona/bench/benchmark_name.hpp>

#include <fmt/format.h>

#include <cmath>

namespace canzona::harness {
namespace {

constexpr const char* kPhases[] = {"grad_sync_ms",  "tp_gather_ms",  "compute_ms",
                                   "tp_scatter_ms", "param_sync_ms", "update_ms"};

}  // namespace

std::optional<std::string> check_step_row(const bench::BenchmarkRow& row) {
  const bench::BenchmarkName name =
      bench::parse_benchmark_name(row.run_name.empty() ? row.name : row.run_name);
  if (name.family != kOptimizerStepFamily || name.projected) return std::nullopt;
  if (row.run_type == "aggregate" && row.aggregate_name != "mean") return std::nullopt;
  const auto projected = row.counters.find("projected");
  if (projected == row.counters.end()) return std::string("no 'projected' counter");
  if (projected->second != 0.0) {
    return fmt::format("'projected' is {} but the name does not end in /projected",
                       projected->second);
  }
  double sum = 0;
  for (const char* phase : kPhases) {
    const auto it = row.counters.find(phase);
    if (it == row.counters.end()) return fmt::format("no '{}' counter", phase);
    sum += it->second;
  }
  const auto other = row.counters.find("other_ms");
  if (other == row.counters.end()) return std::string("no 'other_ms' counter");
  const double step = bench::real_time_ms(row);
  if (std::abs(sum + other->second - step) > kPhaseSumTolerance * step + kPhaseSumSlackMs) {
    return fmt::format(
        "phases and other_ms add up to {:.4f} ms but the step is {:.4f} ms (more than {}% apart)",
        sum + other->second, step, 100 * kPhaseSumTolerance);
  }
  // The phase slots never overlap: together they cannot exceed the step.
  if (other->second < -kPhaseSumSlackMs) {
    return fmt::format(
        "the phases exceed the step by {:.4f} ms (other_ms < 0): phase slots overlap",
        -other->second);
  }
  const auto idle = row.counters.find("idle_ms");
  if (idle == row.counters.end()) return std::string("no 'idle_ms' counter");
  if (idle->second > sum + kPhaseSumSlackMs) {
    return fmt::format("idle {:.4f} ms exceeds the phases it is part of ({:.4f} ms)", idle->second,
                       sum);
  }
  return std::nullopt;
}

}  // namespace canzona::harness
