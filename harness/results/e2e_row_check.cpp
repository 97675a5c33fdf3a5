// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "e2e_row_check.hpp"

#include "step_row_check.hpp"

#include <canzona/bench/benchmark_name.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace canzona::harness {
namespace {

bool close(double value, double expected) {
  return std::abs(value - expected) <= kPhaseSumTolerance * std::abs(expected) + kPhaseSumSlackMs;
}

}  // namespace

std::optional<std::string> check_e2e_row(const bench::BenchmarkRow& row) {
  const bench::BenchmarkName name =
      bench::parse_benchmark_name(row.run_name.empty() ? row.name : row.run_name);
  if (name.family != kE2EIterationFamily || name.projected) return std::nullopt;
  if (row.run_type == "aggregate" && row.aggregate_name != "mean") return std::nullopt;
  std::map<std::string_view, double> c;
  for (const char* counter :
       {"projected", "iteration_ms", "forward_ms", "backward_ms", "step_ms", "other_ms",
        "grad_sync_only_ms", "optimizer_exposed_ms", "tokens", "tokens_per_s"}) {
    const auto it = row.counters.find(counter);
    if (it == row.counters.end()) return fmt::format("no '{}' counter", counter);
    c[counter] = it->second;
  }
  if (c["projected"] != 0.0) {
    return fmt::format("'projected' is {} but the name does not end in /projected", c["projected"]);
  }
  const double iteration = c["iteration_ms"];
  if (!close(iteration, bench::real_time_ms(row))) {
    return fmt::format("iteration_ms is {:.4f} but the row's time is {:.4f} ms", iteration,
                       bench::real_time_ms(row));
  }
  const double phases = c["forward_ms"] + c["backward_ms"] + c["step_ms"] + c["other_ms"];
  if (!close(phases, iteration)) {
    return fmt::format(
        "forward, backward, step and other_ms add up to {:.4f} ms but the iteration is {:.4f} ms",
        phases, iteration);
  }
  if (c["other_ms"] < -kPhaseSumSlackMs) {
    return fmt::format("other_ms is {:.4f}: forward, backward and step exceed the iteration",
                       c["other_ms"]);
  }
  if (!close(c["optimizer_exposed_ms"], iteration - c["grad_sync_only_ms"])) {
    return fmt::format(
        "optimizer_exposed_ms is {:.4f} but iteration_ms - grad_sync_only_ms is {:.4f}",
        c["optimizer_exposed_ms"], iteration - c["grad_sync_only_ms"]);
  }
  if (row.run_type != "aggregate") {
    const double rate = c["tokens"] / (iteration / 1e3);
    if (std::abs(c["tokens_per_s"] - rate) > kPhaseSumTolerance * rate) {
      return fmt::format("tokens_per_s is {:.1f} but tokens per iteration_ms give {:.1f}",
                         c["tokens_per_s"], rate);
    }
  }
  return std::nullopt;
}

}  // namespace canzona::harness
