// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The optimizer-step suite's own flags (`--canzona_<name>=<value>`, see README.md).
#pragma once

#include "case_plan.hpp"
#include "step_case.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace canzona::bench::step {

struct SuiteOptions {
  CaseGrid grid;
  std::string backend;     ///< "cpu" or "cuda"
  int warmup = 2;          ///< untimed steps of each case before its first timed one
  std::uint64_t seed = 1;  ///< parameter and gradient values (a function of seed and rank)
  std::shared_ptr<const PlanSettings> plan;  ///< preset and switches of every case's plan
  std::string topology;                      ///< topology of projected rows
  bool projector = true;  ///< measured rows also carry the projector's step for this job
  int fail_rank = -1;     ///< test hook: this rank throws in its first timed step
  double slowdown = 0;    ///< extra busy work in every measured step, as a fraction of the step
};

/// Reads the flags; ConfigError naming a bad value. The defaults depend on the machine: the
/// cuda backend and full Qwen3 shapes with a GPU (in a build with CUDA and NCCL), else the cpu
/// backend and scaled shapes.
SuiteOptions read_suite_options();

}  // namespace canzona::bench::step
