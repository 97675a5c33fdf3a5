// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "run_presets.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace canzona::harness {
namespace {

constexpr const char* kAllStrategies = "canzona,sc,layerwise,zero1,asc,canzona+sc";
constexpr const char* kAllOptimizers = "muon,shampoo,soap";

// Shapes one node steps for real: full Qwen3 shapes on GPUs, scaled-down ones on a CPU.
const char* node_models(const std::string& backend) {
  return backend == "cuda" ? "qwen3-0.6b,qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-30b-a3b"
                           : "qwen3-0.6b~d16,qwen3-8b~d32,qwen3-30b-a3b~d32";
}

std::string flag(std::string_view name, std::string_view value) {
  return fmt::format("--canzona_{}={}", name, value);
}

// The optimizer-step grid: what is measured on the job's ranks, what is projected beyond them.
std::vector<std::string> grid(std::string_view optimizers, std::string_view models,
                              std::string_view projected_models, std::string_view projected_gpus) {
  return {flag("optimizers", optimizers), flag("strategies", kAllStrategies),
          flag("models", models), flag("projected_models", projected_models),
          flag("projected_gpus", projected_gpus)};
}

// The end-to-end grid: the iteration measured on the job's ranks at one run shape, and the
// paper's shape (sequence 2048, micro-batch 4, global batch 128) projected beyond them.
std::vector<std::string> e2e_grid(std::string_view optimizers, std::string_view strategies,
                                  std::string_view models, std::string_view seq,
                                  std::string_view mbs, std::string_view projected_models,
                                  std::string_view projected_gpus) {
  return {flag("optimizers", optimizers),
          flag("strategies", strategies),
          flag("models", models),
          flag("seq", seq),
          flag("mbs", mbs),
          flag("projected_models", projected_models),
          flag("projected_gpus", projected_gpus)};
}

// One rank per GPU on cuda; two CPU ranks otherwise.
int default_ranks(const std::string& backend, int gpus) {
  return backend == "cuda" ? std::max(gpus, 1) : 2;
}

// About a minute on a 2-core CPU: Muon on Qwen3-0.6B's shapes scaled down 16× at 2 ranks,
// every strategy at both (dp, tp), and Qwen3-32B projected at the paper's 256 GPUs; 9
// repetitions, so a comparison of two smoke runs can use a Mann-Whitney U test.
RunPreset smoke(const std::string& backend, int gpus) {
  return {.name = "smoke",
          .ranks = default_ranks(backend, gpus),
          .repetitions = 9,
          .min_time = 0.05,
          .suite_flags =
              grid("muon", backend == "cuda" ? "qwen3-0.6b" : "qwen3-0.6b~d16", "qwen3-32b", "256"),
          // A few seconds on a 2-core CPU: Qwen3-0.6B's layers at 1/32 of its widths.
          .e2e_flags = e2e_grid(
              "muon", "canzona,layerwise", backend == "cuda" ? "qwen3-0.6b" : "qwen3-0.6b~d32",
              backend == "cuda" ? "2048" : "32", backend == "cuda" ? "4" : "1", "qwen3-32b", "256"),
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
      .suite_flags = grid(kAllOptimizers, node_models(backend), "qwen3-8b,qwen3-32b", "64,256"),
      .e2e_flags = {},
      .description = "every optimizer and strategy on the shapes one node steps, 9 repetitions"};
}

// The paper's grid: dense Qwen3 up to 32B, every strategy and optimizer, 8 to 1024 GPUs
// (projected beyond the job), plus what this machine measures of the nightly shapes.
RunPreset paper(const std::string& backend, int gpus) {
  RunPreset p = nightly(backend, gpus);
  p.name = "paper";
  p.description = "the paper's grid: Qwen3 1.7B-32B x strategies x optimizers x 8-1024 GPUs";
  p.suite_flags =
      grid(kAllOptimizers, node_models(backend), "qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b",
           "8,16,32,64,128,256,512,1024");
  p.e2e_flags =
      e2e_grid(kAllOptimizers, kAllStrategies,
               backend == "cuda" ? "qwen3-0.6b,qwen3-1.7b" : "qwen3-0.6b~d16",
               backend == "cuda" ? "2048" : "64", backend == "cuda" ? "4" : "2",
               "qwen3-1.7b,qwen3-4b,qwen3-8b,qwen3-14b,qwen3-32b", "8,16,32,64,128,256,512,1024");
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

}  // namespace canzona::harness
