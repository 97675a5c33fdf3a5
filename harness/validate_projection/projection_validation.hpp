// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Projection vs reality on this machine: under mpiexec, calibrate the "local" topology from the
// ranks' own collectives, measure per-shape compute on the local backend, project each
// strategy's step, then run the same StepPlan on the real executor and time it. The error is
// reported, never asserted (speed belongs to benchmarks).
#pragma once

#include <canzona/comm/agreement.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/exec/step_timer.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/sim/local_calibration.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace canzona::sim {

struct ValidationConfig {
  model::ModelSpec model;
  int tp = 1;  ///< dp = world size / tp
  std::vector<std::string> strategies = {"canzona", "sc", "layerwise"};
  optim::OptimizerSpec optimizer;
  std::string backend = "cpu";
  int warmup_steps = 2;   ///< executor steps before timing (allocation, first-touch, caches)
  int timed_steps = 5;    ///< executor steps timed; the median is compared
  int measure_steps = 5;  ///< MeasuredCompute steps per shape (median)
  LocalCalibrationOptions calibration;
  /// How the projection costs uneven reduce-scatter / all-gather. The MPI backend runs them as
  /// MPI_Ireduce_scatter / MPI_Iallgatherv, where every part travels directly between its owner
  /// and the others, so the largest part sets the time: the padded model, not NCCL's grouped
  /// rooted collectives.
  UnevenCollectives uneven = UnevenCollectives::kPadded;
  std::uint64_t seed = 1;
};

/// Executor timer slots, in exec::TimerSlot order (named by exec::to_string).
inline constexpr std::size_t kExecutorSlots = exec::kTimerSlots;

/// One strategy: its projection and the executor's measured step.
struct ValidationRow {
  std::string strategy;
  Projection projection;
  /// Wall time of each timed step, max over ranks (a step ends when the slowest rank ends).
  std::vector<double> measured_steps;
  double measured_median = 0;
  /// Executor phase seconds of the median step, max over ranks per slot.
  std::array<double, kExecutorSlots> measured_phases{};
  /// (projected − measured) / measured, with step_seconds as the projection.
  double relative_error = 0;
};

struct ValidationReport {
  int world = 0;
  int dp = 0;
  int tp = 0;
  std::string model;
  std::string optimizer;
  Topology topology;  ///< the calibrated "local" topology
  std::string compute_source;
  UnevenCollectives uneven = UnevenCollectives::kPadded;
  std::vector<ValidationRow> rows;
};

/// The options of `config` that shape the run, for comm::agree_on_start (model as JSON, tp,
/// strategies, optimizer, backend, step counts, calibration sizes, uneven model, seed).
comm::RunOptions validation_run_options(const ValidationConfig& config);

/// Runs the validation (collective over `world`; every rank gets the same report). Before the
/// calibration and any measurement, every rank builds its plans and backend and the ranks agree
/// (comm::agree_on_start) on the plan hashes and on whether that worked, so a rank that cannot
/// (no GPU for --backend cuda, a plan that differs) stops the job at once. The compute
/// cache is measured by every rank at once (so ranks contend for the cores as they do in the
/// real run) and then averaged over ranks, so every rank projects the same numbers.
/// ConfigError for a bad configuration (world not divisible by tp, unknown strategy).
ValidationReport run_projection_validation(comm::Communicator& world,
                                           const ValidationConfig& config);

/// {"validation": "projection vs executor", "world", "dp", "tp", "model", "optimizer",
///  "topology": {...}, "compute_source", "rows": [{"strategy", "projected": projection_json,
///  "measured_ms": [...], "measured_median_ms", "measured_phases_ms": {...},
///  "relative_error"}]}.
nlohmann::json validation_json(const ValidationReport& report);

/// A text table: per strategy projected vs measured step and phases, and the error.
std::string format_validation(const ValidationReport& report);

}  // namespace canzona::sim
