// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Projection vs the real executor on this machine's MPI ranks.
#include "projection_validation.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/backend/host_values.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/core/error.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/exec/step_timer.hpp>
#include <canzona/model/json.hpp>
#include <canzona/plan/step_plan.hpp>
#include <canzona/sim/cache_agreement.hpp>
#include <canzona/sim/compute_model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>

namespace canzona::sim {
namespace {

double max_over_ranks(comm::Communicator& world, double value) {
  double out = 0;
  world.all_reduce(&value, &out, 1, comm::DataType::kFloat64, comm::ReduceOp::kMax).wait();
  return out;
}

// Random values inside every entry of every buffer (padding stays zero, as the executor wants).
void fill(backend::Backend& be, const exec::Executor& executor, bool grads, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 0.02f);
  const plan::StepPlan& p = executor.plan();
  for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
    std::vector<float> host(static_cast<std::size_t>(executor.buffer_elements(b)), 0.0f);
    for (const layout::BufferEntry& e : p.layout.buffers[b].entries) {
      for (std::int64_t i = e.start; i < e.end; ++i)
        host[static_cast<std::size_t>(i)] = normal(rng);
    }
    backend::upload_values(be, grads ? executor.grads(b) : executor.params(b),
                           grads ? executor.grad_type() : executor.param_type(), host);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void measure(comm::Communicator& world, comm::ProcessGroups& groups, backend::Backend& be,
             const plan::StepPlan& plan, const ValidationConfig& config, ValidationRow& row) {
  exec::Executor executor(plan, world, *groups.dp, *groups.tp, be);
  std::mt19937_64 rng(config.seed + static_cast<std::uint64_t>(world.rank()));
  fill(be, executor, false, rng);
  struct Sample {
    double seconds;
    std::array<double, kExecutorSlots> phases;
  };
  std::vector<Sample> samples;
  for (int s = 0; s < config.warmup_steps + config.timed_steps; ++s) {
    fill(be, executor, true, rng);  // the grad sync reduces in place: fresh gradients each step
    world.barrier().wait();
    const auto start = std::chrono::steady_clock::now();
    executor.step();
    be.synchronize();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    const exec::StepTimes times = executor.last_step_times();
    Sample sample{max_over_ranks(world, elapsed.count()), {}};
    std::array<double, kExecutorSlots> mine{};
    std::copy(times.seconds.begin(), times.seconds.end(), mine.begin());
    world
        .all_reduce(mine.data(), sample.phases.data(), mine.size(), comm::DataType::kFloat64,
                    comm::ReduceOp::kMax)
        .wait();
    if (s >= config.warmup_steps) samples.push_back(sample);
  }
  for (const Sample& s : samples) row.measured_steps.push_back(s.seconds);
  row.measured_median = median(row.measured_steps);
  const auto closest =
      std::min_element(samples.begin(), samples.end(), [&](const auto& a, const auto& b) {
        return std::abs(a.seconds - row.measured_median) <
               std::abs(b.seconds - row.measured_median);
      });
  row.measured_phases = closest->phases;
  row.relative_error = (row.projection.step_seconds - row.measured_median) / row.measured_median;
}

// Milliseconds in one executor slot of a measured row.
double slot_ms(const std::array<double, kExecutorSlots>& measured, exec::TimerSlot slot) {
  return measured[static_cast<std::size_t>(slot)] * 1e3;
}

}  // namespace

comm::RunOptions validation_run_options(const ValidationConfig& c) {
  const auto join = [](const auto& values) { return fmt::format("{}", fmt::join(values, ",")); };
  return {{"--model", nlohmann::json(c.model).dump()},
          {"--tp", std::to_string(c.tp)},
          {"--strategy", join(c.strategies)},
          {"--optimizer", std::string(optim::to_string(c.optimizer.kind))},
          {"--backend", c.backend},
          {"--warmup", std::to_string(c.warmup_steps)},
          {"--steps", std::to_string(c.timed_steps)},
          {"--measure-steps", std::to_string(c.measure_steps)},
          {"--calibration-sizes", join(c.calibration.sizes)},
          {"--uneven", std::string(to_string(c.uneven))},
          {"--seed", std::to_string(c.seed)}};
}

ValidationReport run_projection_validation(comm::Communicator& world,
                                           const ValidationConfig& config) {
  if (config.tp < 1 || world.size() % config.tp != 0) {
    throw ConfigError(
        fmt::format("validation: tp {} does not divide the {} ranks", config.tp, world.size()));
  }
  if (config.timed_steps < 1 || config.warmup_steps < 0) {
    throw ConfigError("validation: needs >= 1 timed step and >= 0 warm-up steps");
  }
  ValidationReport report;
  report.world = world.size();
  report.tp = config.tp;
  report.dp = world.size() / config.tp;
  report.model = config.model.display_name;
  report.optimizer = std::string(optim::to_string(config.optimizer.kind));
  // Plans and the backend first, agreed on by every rank: a mismatch or a missing GPU must stop
  // the job before the seconds of calibration and measurement, not after them.
  layout::ParallelConfig parallel;
  parallel.dp = report.dp;
  parallel.tp = report.tp;
  parallel.gpus_per_node = world.size();  // the local topology: one node of every rank
  std::vector<plan::StepPlan> plans;
  std::unique_ptr<backend::Backend> be;
  comm::RunOptions agreed;
  std::exception_ptr local;
  try {
    be = backend::make_backend(config.backend);
    for (const std::string& strategy : config.strategies) {
      plan::StrategyOptions options;
      options.optimizer = config.optimizer;
      baselines::apply_strategy(strategy, options);
      plans.push_back(baselines::make_step_plan(config.model, parallel, options));
      agreed.emplace_back(fmt::format("plan hash of '{}'", strategy),
                          fmt::format("{:016x}", plan::plan_hash(plans.back())));
    }
  } catch (...) {
    local = std::current_exception();
  }
  comm::agree_on_start(world, agreed, local);

  report.topology = measure_local_topology(world, config.calibration);
  comm::ProcessGroups groups = comm::split_dp_tp(world, config.tp);
  ComputeCache cache(config.backend);
  MeasureOptions measure_options;
  measure_options.steps = config.measure_steps;
  measure_options.seed = config.seed;
  MeasuredCompute compute(*be, measure_options, &cache);
  report.compute_source = compute.description();
  report.uneven = config.uneven;
  ProjectionOptions projection;
  projection.uneven = config.uneven;
  // cpu ranks move their collectives' data on the thread that computes (ProjectionOptions).
  projection.comm_beside_compute = config.backend != "cpu";

  for (const plan::StepPlan& plan : plans) {
    // First pass measures the shapes (every rank at once), then every rank projects with the
    // slowest rank's time for each.
    project(plan, report.topology, compute, projection);
    agree_on_cache(world, cache);
    ValidationRow row;
    row.strategy = plan.strategy;
    row.projection = project(plan, report.topology, compute, projection);
    measure(world, groups, *be, plan, config, row);
    report.rows.push_back(std::move(row));
  }
  return report;
}

nlohmann::json validation_json(const ValidationReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ValidationRow& row : r.rows) {
    nlohmann::json phases = nlohmann::json::object();
    for (std::size_t i = 0; i < kExecutorSlots; ++i) {
      phases[std::string(exec::to_string(static_cast<exec::TimerSlot>(i)))] =
          row.measured_phases[i] * 1e3;
    }
    nlohmann::json steps = nlohmann::json::array();
    for (const double s : row.measured_steps) steps.push_back(s * 1e3);
    rows.push_back({{"strategy", row.strategy},
                    {"projected", projection_json(row.projection)},
                    {"measured_ms", std::move(steps)},
                    {"measured_median_ms", row.measured_median * 1e3},
                    {"measured_phases_ms", std::move(phases)},
                    {"relative_error", row.relative_error}});
  }
  return {{"validation", "projection vs executor"},
          {"world", r.world},
          {"dp", r.dp},
          {"tp", r.tp},
          {"model", r.model},
          {"optimizer", r.optimizer},
          {"topology", r.topology},
          {"compute_source", r.compute_source},
          {"uneven_collectives", to_string(r.uneven)},
          {"rows", std::move(rows)}};
}

std::string format_validation(const ValidationReport& r) {
  std::string out = fmt::format(
      "VALIDATION: projection (topology '{}', measured here) vs the executor, {} MPI ranks "
      "(dp {} x tp {}), {} · {}\n  compute: {}\n  uneven RS/AG: {}\n\n",
      r.topology.name, r.world, r.dp, r.tp, r.model, r.optimizer, r.compute_source,
      to_string(r.uneven));
  out += fmt::format("{:<12} {:>13} {:>12} {:>8}   {:<60}\n", "strategy", "projected_ms",
                     "measured_ms", "error", "phases ms, projected (straggler) / measured (max)");
  for (const ValidationRow& row : r.rows) {
    const PhaseTimes& p = row.projection.straggler.phases;
    const auto& m = row.measured_phases;
    const std::string phases = fmt::format(
        "grad {:.1f}/{:.1f} upd {:.1f}/{:.1f} gath {:.1f}/{:.1f} comp {:.1f}/{:.1f} "
        "scat {:.1f}/{:.1f} param {:.1f}/{:.1f} idle -/{:.1f}",
        p.grad_sync * 1e3, slot_ms(m, exec::TimerSlot::kGradSync), p.update * 1e3,
        slot_ms(m, exec::TimerSlot::kUpdate), p.tp_gather * 1e3,
        slot_ms(m, exec::TimerSlot::kTpGather), p.compute * 1e3,
        slot_ms(m, exec::TimerSlot::kCompute), p.tp_scatter * 1e3,
        slot_ms(m, exec::TimerSlot::kTpScatter), p.param_sync * 1e3,
        slot_ms(m, exec::TimerSlot::kParamSync), slot_ms(m, exec::TimerSlot::kIdle));
    out += fmt::format("{:<12} {:>13.2f} {:>12.2f} {:>+7.1f}%   {}\n", row.strategy,
                       row.projection.step_seconds * 1e3, row.measured_median * 1e3,
                       100 * row.relative_error, phases);
  }
  return out;
}

}  // namespace canzona::sim
