// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "suite_options.hpp"

#include "suite_flags.hpp"

#include <string_view>

namespace canzona::bench::step {
namespace {

// Real steps on full shapes need a GPU; a CPU steps Qwen3-shaped models scaled down (lib/model).
constexpr std::string_view kCpuModels = "qwen3-0.6b~d16,qwen3-8b~d32,qwen3-30b-a3b~d32";
constexpr std::string_view kGpuModels =
    "qwen3-0.6b,qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b,qwen3-30b-a3b";
constexpr std::string_view kAllModels =
    "qwen3-0.6b,qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b,qwen3-30b-a3b,qwen3-235b-a22b";

}  // namespace

SuiteOptions read_suite_options() {
  SuiteOptions o;
  o.backend = suite_backend_flag();
  CaseGrid& g = o.grid;
  g.optimizers = suite_list_flag("optimizers", "muon,shampoo,soap");
  g.strategies = suite_list_flag("strategies", "canzona,sc,layerwise,zero1,asc,canzona+sc");
  g.models = suite_list_flag("models", o.backend == "cuda" ? kGpuModels : kCpuModels);
  g.projected_models = suite_list_flag("projected_models", kAllModels);
  g.projected_gpus = suite_whole_list_flag("projected_gpus", "8,16,32,64,128,256,512,1024", 1);
  g.projected_tp = suite_whole_flag("projected_tp", 8, 1);
  g.gpus_per_node = suite_whole_flag("gpus_per_node", 8, 1);
  o.warmup = suite_whole_flag("warmup", 2, 0);
  o.seed = static_cast<std::uint64_t>(suite_whole_flag("seed", 1, 0));
  o.plan = std::make_shared<const PlanSettings>(suite_text_flag("plan", ""));
  o.topology = suite_text_flag("topology", "dgx-h100");
  o.projector = suite_whole_flag("projector", 1, 0) != 0;
  o.fail_rank = suite_whole_flag("inject_failure", -1, -1);
  return o;
}

}  // namespace canzona::bench::step
