// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The state behind StepJob, for the parts of the suites' library that run on it (RankStepper,
// the projector of this job). Not for the suites themselves.
#pragma once

#include "step_job.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/sim/compute_model.hpp>
#include <canzona/sim/topology.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace canzona::bench::step {

struct StepJob::Impl {
  std::string backend_name;
  std::unique_ptr<comm::MpiCommunicator> host;
  std::unique_ptr<comm::Communicator> device;  ///< NCCL world for the cuda backend
  std::unique_ptr<backend::Backend> backend;
  std::map<int, comm::ProcessGroups> groups;  ///< by tp
  // The projector's view of this job (project_here), built on first use.
  std::optional<sim::Topology> local_topology;
  std::unique_ptr<sim::ComputeCache> cache;
  std::unique_ptr<sim::MeasuredCompute> compute;      ///< wall clock
  std::unique_ptr<sim::MeasuredCompute> cpu_compute;  ///< thread CPU clock, host backends only
  bool projector_off = false;  ///< the calibration failed: no projector_ms in this run

  comm::Communicator& world() { return device ? *device : *host; }
  comm::ProcessGroups& groups_for(int tp) {
    auto it = groups.find(tp);
    if (it == groups.end()) it = groups.emplace(tp, comm::split_dp_tp(world(), tp)).first;
    return it->second;
  }
};

}  // namespace canzona::bench::step
