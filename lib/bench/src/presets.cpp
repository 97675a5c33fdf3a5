// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/bench/presets.hpp>

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace canzona::bench {
namespace {

constexpr const char* kAllStrategies = "canzona,sc,layerwise,zero1,asc,canzona+sc";
constexpr const char* kAllOptimizers = "muon,shampoo,soap";
constexpr const char* kPaperModels = "qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b";
constexpr const char* kPaperGpus = "8,16,32,64,128,256,512,1024";

bool on_gpu(const std::string& backend) { return backend == "cuda"; }

// Shapes one node steps for real: full Qwen3 shapes on GPUs, scaled-down ones on a CPU
// (lib/model's `~d<k>` scaling).
const char* node_models(const std::string& backend) {
  return on_gpu(backend) ? "qwen3-0.6b,qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-30b-a3b"
                         : "qwen3-0.6b~d16,qwen3-8b~d32,qwen3-30b-a3b~d32";
}

// One rank per GPU on cuda; two CPU ranks otherwise.
int default_ranks(const std::string& backend, int gpus) {
  return on_gpu(backend) ? std::max(gpus, 1) : 2;
}

// What the optimizer-step suite registers on its own: every optimizer and strategy on the
// shapes a node steps, every catalog model projected at the paper's GPU counts.
StepGridSpec step_default(const std::string& backend) {
  return {kAllOptimizers, kAllStrategies,
          on_gpu(backend) ? "qwen3-0.6b,qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b,"
                            "qwen3-30b-a3b"
                          : node_models(backend),
          "qwen3-0.6b,qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b,qwen3-30b-a3b,"
          "qwen3-235b-a22b",
          kPaperGpus};
}

// What the end-to-end suite registers on its own: Muon with Canzona, layer-wise and SC on the
// small models (a CPU: Qwen3-0.6B's layers at 1/16 of its widths, short sequences), the paper's
// dense models projected at 256 GPUs.
E2EGridSpec e2e_default(const std::string& backend) {
  return {{"muon", "canzona,layerwise,sc",
           on_gpu(backend) ? "qwen3-0.6b,qwen3-1.7b" : "qwen3-0.6b~d16", kPaperModels, "256"},
          on_gpu(backend) ? "2048" : "64",
          on_gpu(backend) ? "4" : "2"};
}

// About a minute on a 2-core CPU: Muon on Qwen3-0.6B's shapes scaled down 16× at 2 ranks,
// every strategy at both (dp, tp), and Qwen3-32B projected at the paper's 256 GPUs; 9
// repetitions, so a comparison of two smoke runs can use a Mann-Whitney U test.
RunPreset smoke(const std::string& backend, int gpus) {
  return {
      .name = "smoke",
      .ranks = default_ranks(backend, gpus),
      .repetitions = 9,
      .min_time = 0.05,
      .step = {"muon", kAllStrategies, on_gpu(backend) ? "qwen3-0.6b" : "qwen3-0.6b~d16",
               "qwen3-32b", "256"},
      // A few seconds on a 2-core CPU: Qwen3-0.6B's layers at 1/32 of its widths.
      .e2e = E2EGridSpec{{"muon", "canzona,layerwise",
                          on_gpu(backend) ? "qwen3-0.6b" : "qwen3-0.6b~d32", "qwen3-32b", "256"},
                         on_gpu(backend) ? "2048" : "32",
                         on_gpu(backend) ? "4" : "1"},
      .description =
          "every strategy, Muon, one small shape, and its training iteration "
          "with Canzona and layer-wise; Qwen3-32B projected on 256 GPUs"};
}

// What a GPU node runs every night: every optimizer and strategy on the shapes that fit one
// node, >= 9 repetitions (enough for a Mann-Whitney U test), and the paper's 256-GPU point.
RunPreset nightly(const std::string& backend, int gpus) {
  return {
      .name = "nightly",
      .ranks = default_ranks(backend, gpus),
      .repetitions = 9,
      .min_time = 0.2,
      .step = {kAllOptimizers, kAllStrategies, node_models(backend), "qwen3-8b,qwen3-32b",
               "64,256"},
      .e2e = std::nullopt,
      .description = "every optimizer and strategy on the shapes one node steps, 9 repetitions"};
}

// The paper's grid: dense Qwen3 up to 32B, every strategy and optimizer, 8 to 1024 GPUs
// (projected beyond the job), plus what this machine measures of the nightly shapes.
RunPreset paper(const std::string& backend, int gpus) {
  RunPreset p = nightly(backend, gpus);
  p.name = "paper";
  p.description = "the paper's grid: Qwen3 1.7B-32B x strategies x optimizers x 8-1024 GPUs";
  p.step = {kAllOptimizers, kAllStrategies, node_models(backend), kPaperModels, kPaperGpus};
  p.e2e = E2EGridSpec{
      {kAllOptimizers, kAllStrategies, on_gpu(backend) ? "qwen3-0.6b,qwen3-1.7b" : "qwen3-0.6b~d16",
       kPaperModels, kPaperGpus},
      on_gpu(backend) ? "2048" : "64",
      on_gpu(backend) ? "4" : "2"};
  return p;
}

}  // namespace

std::vector<std::string> run_preset_names() { return {"smoke", "nightly", "paper"}; }

RunPreset run_preset(std::string_view name, const std::string& backend, int gpus) {
  if (name == "smoke") return smoke(backend, gpus);
  if (name == "nightly") return nightly(backend, gpus);
  if (name == "paper") return paper(backend, gpus);
  throw ConfigError(
      fmt::format("unknown preset '{}'; available: {}", name, fmt::join(run_preset_names(), ", ")));
}

StepGridSpec step_suite_grid(std::string_view preset, const std::string& backend) {
  return preset.empty() ? step_default(backend) : run_preset(preset, backend, 1).step;
}

E2EGridSpec e2e_suite_grid(std::string_view preset, const std::string& backend) {
  if (preset.empty()) return e2e_default(backend);
  const RunPreset p = run_preset(preset, backend, 1);
  if (!p.e2e) {
    std::vector<std::string> with_e2e;
    for (const std::string& name : run_preset_names()) {
      if (run_preset(name, backend, 1).e2e) with_e2e.push_back(name);
    }
    throw ConfigError(fmt::format("preset '{}' has no end-to-end rows; presets with them: {}",
                                  preset, fmt::join(with_e2e, ", ")));
  }
  return *p.e2e;
}

}  // namespace canzona::bench
