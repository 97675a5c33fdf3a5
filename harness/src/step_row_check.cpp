// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_row_check.hpp"

#include <canzona/harness/benchmark_name.hpp>

#include <fmt/format.h>

#include <cmath>

namespace canzona::harness {
namespace {

constexpr const char* kPhases[] = {"grad_sync_ms",  "tp_gather_ms",  "compute_ms",
                                   "tp_scatter_ms", "param_sync_ms", "update_ms"};

// Absolute slack for steps of a few milliseconds: the rounding of averaged counters and of a
// time in the unit of the row.
constexpr double kPhaseSumSlackMs = 0.05;

}  // namespace

std::optional<std::string> check_step_row(const BenchmarkRow& row) {
  const std::optional<BenchmarkName> name = parse_benchmark_name(row.name);
  if (!name || name->family != kOptimizerStepFamily) {
    return "name does not read OptimizerStep/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/"
           "tp:<t>[/projected] with gpus = dp * tp";
  }
  // A spread (stddev, cv) of a constant counter is 0 or not a number: only its name says what it
  // is a spread of.
  if (name->aggregate == "stddev" || name->aggregate == "cv") return std::nullopt;
  const auto projected = row.counters.find("projected");
  if (projected == row.counters.end()) return std::string("no 'projected' counter");
  if (projected->second != (name->projected ? 1.0 : 0.0)) {
    return fmt::format("'projected' is {} but the name {} /projected", projected->second,
                       name->projected ? "ends in" : "does not end in");
  }
  if (name->projected) {
    constexpr std::string_view kPrefix = "projected topology=";
    if (!row.label.starts_with(kPrefix) || row.label.size() == kPrefix.size() ||
        row.label[kPrefix.size()] == ' ') {
      return fmt::format("a projected row's label must start with '{}<name>', got '{}'", kPrefix,
                         row.label);
    }
    return std::nullopt;
  }
  // Medians are taken counter by counter, so only iterations and means add up.
  if (name->aggregate == "median") return std::nullopt;
  double sum = 0;
  for (const char* phase : kPhases) {
    const auto it = row.counters.find(phase);
    if (it == row.counters.end()) return fmt::format("no '{}' counter", phase);
    sum += it->second;
  }
  const double step = real_time_ms(row);
  if (std::abs(sum - step) > kPhaseSumTolerance * step + kPhaseSumSlackMs) {
    return fmt::format("phases add up to {:.4f} ms but the step is {:.4f} ms (more than {}% apart)",
                       sum, step, 100 * kPhaseSumTolerance);
  }
  // The phase slots never overlap: together they cannot exceed the step.
  if (row.counters.at("other_ms") < -kPhaseSumSlackMs) {
    return fmt::format(
        "the phases exceed the step by {:.4f} ms (other_ms < 0): phase slots overlap",
        -row.counters.at("other_ms"));
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
