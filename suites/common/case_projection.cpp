// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "case_projection.hpp"

#include "step_job_impl.hpp"

#include <canzona/core/error.hpp>
#include <canzona/sim/cache_agreement.hpp>
#include <canzona/sim/local_calibration.hpp>
#include <canzona/sim/projector.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

namespace canzona::bench::step {

namespace {

// The busiest rank's AdamW and matrix-step time.
double max_compute_busy(const sim::Projection& p) {
  double busiest = 0;
  for (const sim::RankTimeline& rank : p.ranks) busiest = std::max(busiest, rank.compute_busy);
  return busiest;
}

}  // namespace

std::optional<HereProjection> project_here(StepJob& job, const CasePlan& plan,
                                           const std::string& topology) {
  StepJob::Impl& j = job.impl();
  if (j.projector_off) return std::nullopt;
  sim::ProjectionOptions options;
  if (!j.local_topology) {
    if (!j.device && j.host->size() > 1) {
      // MPI ranks on this machine: the topology is what its collectives measure, over the sizes
      // the steps of the scaled models a CPU runs move (their buckets are a few MiB).
      sim::LocalCalibrationOptions calibration;
      calibration.sizes = {16u << 10, 256u << 10, 4u << 20, 32u << 20};
      try {
        j.local_topology = sim::measure_local_topology(*j.host, calibration);
      } catch (const ConfigError& e) {
        // Every rank fitted the same (max over ranks) times, so every rank gets here: the
        // measurements stand, only the comparison with the projector is off.
        j.projector_off = true;
        if (j.host->rank() == 0) {
          std::fprintf(stderr, "warning: no projector_ms in this run: %s\n", e.what());
        }
        return std::nullopt;
      }
    } else {
      j.local_topology = sim::resolve_topology(topology);
    }
    j.cache = std::make_unique<sim::ComputeCache>(j.backend_name);
    // Measured on the job's own backend (its ranks step the shapes together), not a new one.
    j.compute =
        std::make_unique<sim::MeasuredCompute>(*j.backend, sim::MeasureOptions{}, j.cache.get());
    if (!j.device) {
      // The same measurements on the thread CPU clock (one measurement fills both clocks).
      sim::MeasureOptions cpu_clock;
      cpu_clock.clock = sim::ComputeClock::kThreadCpu;
      j.cpu_compute = std::make_unique<sim::MeasuredCompute>(*j.backend, cpu_clock, j.cache.get());
    }
  }
  // MPI runs an uneven reduce-scatter / all-gather as one direct exchange, which the padded model
  // describes; NCCL as grouped rooted collectives (the projector's default).
  if (!j.device) options.uneven = sim::UnevenCollectives::kPadded;
  // A host rank moves its collectives' data on the thread that computes (ProjectionOptions).
  options.comm_beside_compute = j.device != nullptr;
  const plan::StepPlan& p = step_plan(plan);
  // On host ranks the shapes are measured again at every call (after each repetition's steps):
  // the speed of a shared (virtual) CPU moves over seconds to minutes with load this machine
  // cannot see, so compute measured for an earlier row can be 50 % off for this one, on either
  // clock. A GPU's speed does not move that way: its measurements serve the whole run.
  if (!j.device) j.cache->clear();
  sim::PreparedProjection prepared(p, *j.local_topology, options);
  prepared.project(*j.compute);  // measures what is missing
  sim::agree_on_cache(*j.host, *j.cache);
  HereProjection here;
  here.step_seconds = prepared.project(*j.compute).step_seconds;
  if (j.cpu_compute) here.busy_cpu_seconds = max_compute_busy(prepared.project(*j.cpu_compute));
  return here;
}

namespace {

// Compute models of projected rows, one per (backend, topology) for the whole run: measured on
// the local GPU, or on a CPU machine the cost model of the topology's device profile.
sim::ComputeModel& scale_compute(const sim::Topology& topology, const std::string& backend) {
  static std::map<std::string, sim::ComputeSource> sources;
  const std::string key = backend == "cuda" ? "cuda" : "cost_model/" + topology.name;
  sim::ComputeSource& source = sources[key];
  if (!source.model) {
    source = backend == "cuda"
                 ? sim::measured_source("cuda", sim::MeasureOptions{})
                 : sim::cost_model_source(topology, 0,
                                          "projected rows cannot be costed on a CPU machine "
                                          "without one: add a \"device\" section or use a preset");
  }
  return *source.model;
}

}  // namespace

ProjectedStep project_at_scale(const CasePlan& plan, const std::string& topology,
                               const std::string& backend) {
  const sim::Topology t = sim::resolve_topology(topology);
  sim::ComputeModel& compute = scale_compute(t, backend);
  const sim::Projection p = sim::project(step_plan(plan), t, compute);
  ProjectedStep out;
  out.step_seconds = p.step_seconds;
  out.optimizer_seconds = p.optimizer_seconds;
  out.straggler_rank = p.straggler_rank;
  out.compute_imbalance = p.compute_imbalance;
  // The projector's phases into the executor's slots, by name (plan::reported_phase_names).
  for (std::size_t i = 0; i < sim::phase_names().size(); ++i) {
    for (std::size_t s = 0; s < kSlots; ++s) {
      if (exec::to_string(static_cast<exec::TimerSlot>(s)) == sim::phase_names()[i]) {
        out.straggler[s] = sim::phase_value(p.straggler.phases, i);
      }
    }
  }
  out.straggler[kIdleSlot] = p.straggler.idle;
  out.topology = t.name;
  out.compute = compute.kind() == "measured" ? "measured(" + backend + ")" : compute.kind();
  if (compute.kind() != "measured") out.gemm_efficiency = t.device->gemm_efficiency;
  return out;
}

void check_topology(const std::string& topology) { sim::resolve_topology(topology); }

}  // namespace canzona::bench::step
