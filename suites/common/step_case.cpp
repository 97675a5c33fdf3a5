// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_case.hpp"

#include <canzona/layout/parallel_config.hpp>
#include <canzona/model/catalog.hpp>

namespace canzona::bench::step {

std::vector<StepCase> measured_cases(const CaseGrid& grid, int ranks) {
  std::vector<StepCase> cases;
  for (const std::string& optimizer : grid.optimizers) {
    for (const std::string& strategy : grid.strategies) {
      for (const std::string& name : grid.models) {
        const model::ModelSpec spec = model::model_from_name(name);
        for (const int tp : layout::valid_tp_values(spec, grid.gpus_per_node)) {
          if (ranks % tp != 0) continue;
          cases.push_back({optimizer, strategy, spec.name, ranks / tp, tp, false});
        }
      }
    }
  }
  return cases;
}

std::vector<StepCase> projected_cases(const CaseGrid& grid, int ranks) {
  std::vector<StepCase> cases;
  for (const std::string& optimizer : grid.optimizers) {
    for (const std::string& strategy : grid.strategies) {
      for (const std::string& name : grid.projected_models) {
        const model::ModelSpec spec = model::model_from_name(name);
        int tp = 1;
        for (const int valid : layout::valid_tp_values(spec, grid.gpus_per_node)) {
          if (valid <= grid.projected_tp) tp = valid;
        }
        for (const int gpus : grid.projected_gpus) {
          if (gpus <= ranks || gpus % tp != 0) continue;
          cases.push_back({optimizer, strategy, spec.name, gpus / tp, tp, true});
        }
      }
    }
  }
  return cases;
}

}  // namespace canzona::bench::step
