// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Measuring this machine's collectives and fitting them like nccl-tests output.
#include "canzona/sim/local_calibration.hpp"

#include "canzona/sim/collective_model.hpp"
#include "canzona/sim/nccl_tests.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <vector>

namespace canzona::sim {
namespace {

// Mean seconds of `op` (one collective, waited for) over the iterations, max over the ranks.
double time_collective(comm::Communicator& world, const LocalCalibrationOptions& options,
                       const std::function<comm::Request()>& op) {
  for (int i = 0; i < options.warmup; ++i) op().wait();
  world.barrier().wait();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.iterations; ++i) op().wait();
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  double mine = elapsed.count() / options.iterations;
  double slowest = 0;
  world.all_reduce(&mine, &slowest, 1, comm::DataType::kFloat64, comm::ReduceOp::kMax).wait();
  return slowest;
}

NcclTestsRun measure(comm::Communicator& world, const LocalCalibrationOptions& options,
                     CollectiveClass kind) {
  const auto n = static_cast<std::size_t>(world.size());
  NcclTestsRun run;
  run.source = "local MPI ping benchmark";
  run.op = kind;
  run.op_name = std::string(to_string(kind));
  run.ranks = world.size();
  run.nodes = 1;
  for (const std::size_t bytes : options.sizes) {
    // nccl-tests' S: one rank's buffer for all-reduce / all-to-all / broadcast, the whole array
    // for reduce-scatter / all-gather. Round to whole floats per rank.
    const std::size_t total = bytes / sizeof(float) / n * n;
    if (total == 0) continue;
    const std::size_t part = total / n;
    std::vector<float> send(total, 1.0f);
    std::vector<float> recv(total, 0.0f);
    const std::vector<std::size_t> counts(n, part);
    std::vector<std::size_t> displs(n);
    for (std::size_t j = 0; j < n; ++j) displs[j] = j * part;
    const auto me = static_cast<std::size_t>(world.rank());
    std::function<comm::Request()> op;
    switch (kind) {
      case CollectiveClass::kAllReduce:
        op = [&] {
          return world.all_reduce(send.data(), recv.data(), total, comm::DataType::kFloat32,
                                  comm::ReduceOp::kSum);
        };
        break;
      // Reduce-scatter and all-gather in place, as the executor calls them on its buckets (a
      // backend may stage in-place calls, and that cost belongs to the step).
      case CollectiveClass::kReduceScatter:
        op = [&] {
          return world.reduce_scatter(send.data(), send.data() + displs[me], counts,
                                      comm::DataType::kFloat32, comm::ReduceOp::kSum);
        };
        break;
      case CollectiveClass::kAllGather:
        op = [&] {
          return world.all_gather(recv.data() + displs[me], recv.data(), counts,
                                  comm::DataType::kFloat32);
        };
        break;
      case CollectiveClass::kAllToAll:
        op = [&] {
          return world.all_to_all(send.data(), counts, displs, recv.data(), counts, displs,
                                  comm::DataType::kFloat32);
        };
        break;
      case CollectiveClass::kBroadcast:
        op = [&] { return world.broadcast(send.data(), total, comm::DataType::kFloat32, 0); };
        break;
    }
    const double seconds = time_collective(world, options, op);
    NcclTestsRow row;
    row.bytes = static_cast<double>(total * sizeof(float));
    row.count = static_cast<std::int64_t>(total);
    row.type = "float";
    row.time_us = seconds * 1e6;
    row.algbw_gbps = row.bytes / seconds / 1e9;
    row.busbw_gbps = row.algbw_gbps * bus_factor(kind, world.size());
    run.rows.push_back(row);
  }
  return run;
}

}  // namespace

Topology measure_local_topology(comm::Communicator& world, const LocalCalibrationOptions& options) {
  if (world.memory_space() != comm::MemorySpace::kHost) {
    throw ConfigError(
        fmt::format("local topology calibration needs a host-memory communicator (mpi), got '{}'",
                    world.backend()));
  }
  if (world.size() < 2) {
    throw ConfigError("local topology calibration needs at least 2 ranks (run under mpirun -np 2)");
  }
  if (options.iterations < 1 || options.warmup < 0 || options.sizes.size() < 2) {
    throw ConfigError(
        "local topology calibration needs >= 1 iteration, >= 0 warm-up and >= 2 sizes");
  }
  // Starting point: the step latencies are irrelevant inside one node of ranks that talk over
  // shared memory; the fit sets every bandwidth and the base latency.
  Topology base;
  base.name = "local";
  base.description = fmt::format("this machine: {} {} ranks on one node, collectives measured",
                                 world.size(), world.backend());
  base.gpus_per_node = world.size();
  base.intra_node.base_latency_us = 0;
  base.intra_node.step_latency_us = 0;
  base.intra_node.busbw_gbps = {1, 1, 1, 1, 1};
  base.inter_node = base.intra_node;  // unused: one node
  std::vector<NcclTestsRun> runs;
  for (const CollectiveClass kind :
       {CollectiveClass::kAllReduce, CollectiveClass::kReduceScatter, CollectiveClass::kAllGather,
        CollectiveClass::kAllToAll, CollectiveClass::kBroadcast}) {
    runs.push_back(measure(world, options, kind));
  }
  // Bandwidths are fitted per class; the one base latency is the mean of the classes' fitted
  // alphas (calibrate_topology).
  return calibrate_topology(base, runs);
}

}  // namespace canzona::sim
