// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Planner suite: the cost of building a step's layout for Qwen3 models at cluster scale, and the
// layout's quality counters. CPU only; registered on every machine.
#include "suite.hpp"

#include <canzona/layout/zero1.hpp>
#include <canzona/model/catalog.hpp>

#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <string>
#include <vector>

namespace canzona::bench {
namespace {

struct LayoutCase {
  std::string model;
  int dp = 1;
  int tp = 1;
};

// The paper's 256-GPU point and the DP range of its plan-quality targets, for the dense models
// it reports; the two MoE models at moderate scale.
std::vector<LayoutCase> layout_cases() {
  std::vector<LayoutCase> cases;
  for (const char* model : {"qwen3-8b", "qwen3-14b", "qwen3-32b"}) {
    for (const int dp : {8, 32, 64}) {
      cases.push_back({model, dp, 4});
    }
    cases.push_back({model, 32, 8});
  }
  cases.push_back({"qwen3-30b-a3b", 16, 4});
  cases.push_back({"qwen3-235b-a22b", 64, 4});
  return cases;
}

void report_layout_counters(benchmark::State& state, const layout::Zero1Layout& result) {
  double buckets = 0;
  double cut = 0;
  double padding = 0;
  double params = 0;
  for (const layout::Buffer& buffer : result.buffers) {
    buckets += static_cast<double>(buffer.buckets.size());
    cut += static_cast<double>(layout::count_cut_entries(buffer, /*matrices_only=*/true));
    padding += static_cast<double>(buffer.padding());
    params += static_cast<double>(buffer.data_numel());
  }
  state.counters["buckets"] = buckets;
  state.counters["matrices_cut"] = cut;
  state.counters["padding_elems"] = padding;
  state.counters["params"] = params;
}

void bm_zero1_layout(benchmark::State& state, const LayoutCase& c) {
  const model::ModelSpec& spec = model::find_model(c.model);
  const layout::ParallelConfig config{c.dp, c.tp, 8};
  layout::Zero1Layout result;
  for (auto _ : state) {
    result = layout::build_zero1_layout(spec, config);
    benchmark::DoNotOptimize(result.buffers.data());
  }
  report_layout_counters(state, result);
}

}  // namespace

void register_suite() {
  for (const LayoutCase& c : layout_cases()) {
    const std::string name =
        fmt::format("Planner/zero1/{}/gpus:{}/dp:{}/tp:{}", c.model, c.dp * c.tp, c.dp, c.tp);
    benchmark::RegisterBenchmark(name.c_str(), bm_zero1_layout, c)
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace canzona::bench
