// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "e2e_case.hpp"

#include <canzona/bench/benchmark_name.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace canzona::bench::e2e {

std::string benchmark_name(const E2ECase& c) { return e2e_iteration_name(c.step, c.seq, c.mbs); }

E2ECase parse_case(const std::string& name) {
  const BenchmarkName parsed = parse_benchmark_name(name);
  if (parsed.family != kE2EIterationFamily) {
    throw ConfigError(fmt::format("'{}' is not an E2EIteration benchmark name", name));
  }
  E2ECase c;
  c.step = {parsed.optimizer, parsed.strategy, parsed.model,
            *parsed.dp,       *parsed.tp,      parsed.projected};
  c.seq = std::stoi(*parsed.param("seq"));
  c.mbs = std::stoi(*parsed.param("mbs"));
  return c;
}

std::vector<E2ECase> measured_cases(const E2EGrid& grid, int ranks) {
  std::vector<E2ECase> cases;
  for (const step::StepCase& s : step::measured_cases(grid.step, ranks)) {
    if (!grid.tp.empty() && std::find(grid.tp.begin(), grid.tp.end(), s.tp) == grid.tp.end()) {
      continue;
    }
    for (const int seq : grid.seq) {
      for (const int mbs : grid.mbs) cases.push_back({s, seq, mbs});
    }
  }
  return cases;
}

std::vector<E2ECase> projected_cases(const E2EGrid& grid, int ranks) {
  std::vector<E2ECase> cases;
  for (const step::StepCase& s : step::projected_cases(grid.step, ranks)) {
    cases.push_back({s, grid.projected_seq, grid.projected_mbs});
  }
  return cases;
}

}  // namespace canzona::bench::e2e
