// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Planner suite: the cost of building a step's layout for Qwen3 models at cluster scale, and the
// layout's quality counters, and the cost of projecting the step (lib/sim) of every named
// strategy. CPU only; registered on every machine.
#include "suite.hpp"

#include <canzona/baselines/strategy.hpp>
#include <canzona/bench/benchmark_name.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/plan/step_plan.hpp>
#include <canzona/sim/compute_model.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

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

// Planning a Muon step with a named strategy: layout, FLOP costs of the full matrices, DP
// partition, TP micro-groups, invariant checks. The whole pipeline is timed (DESIGN target:
// Qwen3-32B on 256 ranks in < 100 ms); the counters are the plan's quality on the FLOP cost.
void bm_step_plan(benchmark::State& state, const LayoutCase& c, std::string_view strategy) {
  try {
    const model::ModelSpec& spec = model::find_model(c.model);
    const layout::ParallelConfig config{c.dp, c.tp, 8};
    plan::StrategyOptions options;
    baselines::apply_strategy(strategy, options);
    options.zero1.bucket_size = kCanzonaBucketSize;
    options.optimizer.kind = optim::OptimizerKind::kMuon;
    options.cost = plan::CostKind::kFlops;
    plan::StepPlan result;
    for (auto _ : state) {
      result = baselines::make_step_plan(spec, config, options);
      benchmark::DoNotOptimize(result.matrices.data());
    }
    const plan::PlanMetrics metrics = plan::plan_metrics(result);
    state.counters["imbalance"] = metrics.imbalance;
    state.counters["imbalance_floor"] = metrics.imbalance_floor;
    state.counters["makespan_over_lower_bound"] = metrics.max_over_lower_bound;
    state.counters["max_rank_gflop"] = metrics.max_cost / 1e9;
    std::string method;
    for (const plan::BufferPlan& bp : result.buffers) {
      if (bp.matrix) method = bp.partition.method;
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

// Projection cost grows with the distinct work, not with ranks × matrices: a dense and a MoE
// model of each size class from 64 to 1024 GPUs at the paper's TP 4.
std::vector<LayoutCase> projection_cases() {
  std::vector<LayoutCase> cases;
  for (const char* model : {"qwen3-8b", "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b"}) {
    for (const int gpus : {64, 256, 1024}) cases.push_back({model, gpus / 4, 4});
  }
  return cases;
}

// Projecting one Muon step of every named strategy (and Canzona's DP side alone) on DGX H100s
// with cost-model compute, what `canzona-bench project --strategy ...` does per GEMM efficiency;
// the plans are built once, outside the timed loop.
void bm_projection(benchmark::State& state, const LayoutCase& c) {
  try {
    const model::ModelSpec& spec = model::find_model(c.model);
    const sim::Topology topology = sim::topology_preset("dgx-h100");
    const layout::ParallelConfig config{c.dp, c.tp, topology.gpus_per_node};
    std::vector<plan::StepPlan> plans;
    std::vector<std::string_view> strategies = baselines::strategy_names();
    strategies.push_back("canzona+sc");
    for (const std::string_view strategy : strategies) {
      plan::StrategyOptions options;
      baselines::apply_strategy(strategy, options);
      options.optimizer.kind = optim::OptimizerKind::kMuon;
      plans.push_back(baselines::make_step_plan(spec, config, options));
    }
    sim::CostModelCompute compute(*topology.device);
    double step_ms = 0;
    for (auto _ : state) {
      for (const plan::StepPlan& plan : plans) {
        step_ms = sim::project(plan, topology, compute).step_seconds * 1e3;
        benchmark::DoNotOptimize(step_ms);
      }
    }
    state.counters["strategies"] = static_cast<double>(plans.size());
    state.counters["matrices"] = static_cast<double>(plans.front().matrices.size());
  } catch (const Error& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

void register_suite() {
  for (const LayoutCase& c : layout_cases()) {
    const std::string name = planner_name({"", "zero1", c.model, c.dp, c.tp});
    if (!case_selected(name)) continue;
    benchmark::RegisterBenchmark(name.c_str(), bm_zero1_layout, c)->Unit(benchmark::kMillisecond);
  }
  // The named strategies, and the DP sides alone (TP-SC inside every TP group), which is where
  // the DP partitions differ.
  std::vector<std::string_view> strategies = baselines::strategy_names();
  for (const std::string_view dp_side : {"canzona+sc", "layerwise-lpt+sc"}) {
    strategies.push_back(dp_side);
  }
  for (const std::string_view strategy : strategies) {
    for (const LayoutCase& c : dp_plan_cases()) {
      const std::string name = planner_name({"muon", std::string(strategy), c.model, c.dp, c.tp});
      if (!case_selected(name)) continue;
      benchmark::RegisterBenchmark(name.c_str(), bm_step_plan, c, strategy)
          ->Unit(benchmark::kMillisecond);
    }
  }
  for (const LayoutCase& c : projection_cases()) {
    const std::string name = projector_name("muon", c.model, c.dp, c.tp);
    if (!case_selected(name)) continue;
    benchmark::RegisterBenchmark(name.c_str(), bm_projection, c)->Unit(benchmark::kMillisecond);
  }
}

}  // namespace canzona::bench
