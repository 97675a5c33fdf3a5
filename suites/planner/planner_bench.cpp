// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Planner suite: the cost of building a step's layout for Qwen3 models at cluster scale, and the
// layout's quality counters. CPU only; registered on every machine.
#include "suite.hpp"

#include <canzona/baselines/layerwise.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/plan/cost.hpp>
#include <canzona/plan/dp_partition.hpp>
#include <canzona/plan/metrics.hpp>

#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <canzona/core/error.hpp>

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

// Canzona's training script uses 400M-element buckets for the matrix buffer (paper-spec §3.5).
constexpr std::int64_t kCanzonaBucketSize = 400'000'000;

enum class DpStrategy { kCanzona, kStatic, kLayerwise };

const char* strategy_name(DpStrategy s) {
  switch (s) {
    case DpStrategy::kCanzona:
      return "canzona";
    case DpStrategy::kStatic:
      return "static";
    case DpStrategy::kLayerwise:
      return "layerwise";
  }
  return "?";
}

const layout::Buffer& matrix_buffer(const layout::Zero1Layout& result) {
  for (const layout::Buffer& buffer : result.buffers) {
    if (buffer.name == "matrix") return buffer;
  }
  throw Error("layout has no matrix buffer");
}

// Planning the DP side of a Muon step: layout, FLOP costs of the full matrices, partition. The
// whole pipeline is timed (DESIGN target: Qwen3-32B on 256 ranks in < 100 ms); the counters
// are the plan's quality on the FLOP cost.
void bm_dp_plan(benchmark::State& state, const LayoutCase& c, DpStrategy strategy) {
  try {
    const model::ModelSpec& spec = model::find_model(c.model);
    const layout::ParallelConfig config{c.dp, c.tp, 8};
    layout::Zero1Options zero1;
    zero1.bucket_size = kCanzonaBucketSize;
    optim::OptimizerSpec muon;
    muon.kind = optim::OptimizerKind::kMuon;
    plan::PartitionMetrics metrics;
    std::string method;
    for (auto _ : state) {
      const layout::Zero1Layout result = layout::build_zero1_layout(spec, config, zero1);
      const layout::Buffer& buffer = matrix_buffer(result);
      const std::vector<double> costs =
          plan::entry_costs(result, buffer, plan::CostKind::kFlops, muon);
      if (strategy == DpStrategy::kLayerwise) {
        std::vector<std::int64_t> numels;
        for (const layout::BufferEntry& e : buffer.entries) numels.push_back(e.numel());
        const std::vector<int> owner = baselines::layerwise_assignment(
            numels, costs, c.dp, baselines::LayerwiseMode::kPingPongNumel);
        metrics = plan::assignment_metrics(owner, costs, c.dp);
        method = "pingpong";
      } else {
        const plan::DpPartition partition = strategy == DpStrategy::kCanzona
                                                ? plan::alpha_balanced_partition(buffer, 1.0, costs)
                                                : plan::static_partition(buffer);
        metrics = plan::partition_metrics(buffer, partition, costs, c.dp);
        method = partition.method;
      }
      benchmark::DoNotOptimize(metrics.imbalance);
    }
    state.counters["imbalance"] = metrics.imbalance;
    state.counters["makespan_over_lower_bound"] = metrics.makespan_over_lower_bound;
    if (metrics.max_slice_elements > 0) {
      state.counters["max_slice_elems"] = static_cast<double>(metrics.max_slice_elements);
    }
    state.SetLabel(method);
  } catch (const Error& e) {
    state.SkipWithError(e.what());
  }
}

std::vector<LayoutCase> dp_plan_cases() {
  std::vector<LayoutCase> cases;
  for (const char* model : {"qwen3-8b", "qwen3-14b", "qwen3-32b"}) {
    for (const int dp : {8, 16, 32, 64}) cases.push_back({model, dp, 4});
  }
  cases.push_back({"qwen3-32b", 32, 8});   // the paper's 256-GPU point, TP inside a node
  cases.push_back({"qwen3-32b", 256, 1});  // 256 DP ranks: the planning-time target
  return cases;
}

}  // namespace

void register_suite() {
  for (const LayoutCase& c : layout_cases()) {
    const std::string name =
        fmt::format("Planner/zero1/{}/gpus:{}/dp:{}/tp:{}", c.model, c.dp * c.tp, c.dp, c.tp);
    benchmark::RegisterBenchmark(name.c_str(), bm_zero1_layout, c)->Unit(benchmark::kMillisecond);
  }
  for (const DpStrategy strategy :
       {DpStrategy::kCanzona, DpStrategy::kStatic, DpStrategy::kLayerwise}) {
    for (const LayoutCase& c : dp_plan_cases()) {
      const std::string name =
          fmt::format("Planner/muon/{}/{}/gpus:{}/dp:{}/tp:{}", strategy_name(strategy), c.model,
                      c.dp * c.tp, c.dp, c.tp);
      benchmark::RegisterBenchmark(name.c_str(), bm_dp_plan, c, strategy)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace canzona::bench
