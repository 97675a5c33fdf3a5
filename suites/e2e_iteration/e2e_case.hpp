// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cases of the end-to-end iteration suite and their benchmark names:
//   E2EIteration/<optimizer>/<strategy>/<model>/gpus:<n>/dp:<d>/tp:<t>/seq:<s>/mbs:<b>
//   ... /projected   for projected rows
// A case is an optimizer-step case (the same plan the optimizer-step suite measures) plus the
// input shape of the model that produces its gradients.
#pragma once

#include "step_case.hpp"

#include <string>
#include <vector>

namespace canzona::bench::e2e {

struct E2ECase {
  step::StepCase step;  ///< optimizer, strategy, model, dp, tp, projected
  int seq = 128;        ///< tokens per sequence
  int mbs = 1;          ///< sequences per micro-batch
};

/// The benchmark name of a case (see the file comment).
std::string benchmark_name(const E2ECase& c);

/// The case a benchmark name describes (parsed by bench::parse_benchmark_name, the one parser
/// of names). ConfigError for a name that is not an E2EIteration name.
E2ECase parse_case(const std::string& name);

/// What the suite registers beyond the optimizer-step grid.
struct E2EGrid {
  step::CaseGrid step;       ///< optimizers, strategies, models, projected GPU counts
  std::vector<int> tp;       ///< measured TP degrees; empty: every valid one
  std::vector<int> seq;      ///< measured sequence lengths
  std::vector<int> mbs;      ///< measured micro-batch sizes
  int projected_seq = 2048;  ///< the paper's training script
  int projected_mbs = 4;
};

/// Measured rows for a job of `ranks` ranks: every optimizer-step measured case (restricted to
/// `tp` when given) × seq × mbs.
std::vector<E2ECase> measured_cases(const E2EGrid& grid, int ranks);

/// Projected rows: every optimizer-step projected case at projected_seq and projected_mbs.
std::vector<E2ECase> projected_cases(const E2EGrid& grid, int ranks);

}  // namespace canzona::bench::e2e
