// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Measuring this machine's collectives and fitting them like nccl-tests output.
#include "canzona/sim/local_calibration.hpp"

#include "canzona/sim/collective_model.hpp"
#include "canzona/sim/nccl_tests.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace canzona::sim {
namespace {

// Seconds of `op` (one collective, waited for): the fastest of the timed repetitions, each
// started together after a barrier, max over the ranks. On a busy host a repetition can only be
// slowed down by other processes, never sped up, so the minimum is the estimate least disturbed
// by noise (the mean let one descheduled repetition make a small message slower than a large one).
double time_collective(comm::Communicator& world, const LocalCalibrationOptions& options,
                       const std::function<comm::Request()>& op) {
  for (int i = 0; i < options.warmup; ++i) op().wait();
  double fastest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < options.iterations; ++i) {
    world.barrier().wait();
    const auto start = std::chrono::steady_clock::now();
    op().wait();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    fastest = std::min(fastest, elapsed.count());
  }
  double slowest = 0;
  world.all_reduce(&fastest, &slowest, 1, comm::DataType::kFloat64, comm::ReduceOp::kMax).wait();
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

std::optional<std::string> make_fittable(NcclTestsRun& run) {
  // Sizes ascending and distinct (sizes that round to the same float count collapse).
  std::stable_sort(run.rows.begin(), run.rows.end(),
                   [](const NcclTestsRow& a, const NcclTestsRow& b) { return a.bytes < b.bytes; });
  std::vector<NcclTestsRow> rows;
  for (const NcclTestsRow& row : run.rows) {
    if (rows.empty() || row.bytes > rows.back().bytes) rows.push_back(row);
  }
  run.rows = std::move(rows);
  if (run.rows.size() < 2) {
    throw ConfigError(
        "local topology calibration needs >= 2 distinct message sizes of at least 4 bytes per "
        "rank");
  }
  try {
    fit_alpha_beta(run);
    return std::nullopt;
  } catch (const ConfigError& e) {
    // fit_alpha_beta refuses, rightly for nccl-tests files, a table whose times do not grow with
    // the message size. Measured here it is noise on a busy host, not a corrupt file.
    const NcclTestsRow& small = run.rows.front();
    const NcclTestsRow& large = run.rows.back();
    const double alpha_us = std::min(small.time_us, large.time_us);
    // The largest message's time, at least a hair above alpha so that the slope is positive.
    const double large_us = std::max(large.time_us, alpha_us * 1.000001 + 1e-3);
    const double per_byte_us = (large_us - alpha_us) / (large.bytes - small.bytes);
    for (NcclTestsRow& row : run.rows) {
      row.time_us = alpha_us + per_byte_us * (row.bytes - small.bytes);
    }
    return fmt::format(
        "local calibration of {}: the measured times did not grow with the message size (a busy "
        "host); fitted from the smallest and largest message instead ({})",
        run.op_name, e.what());
  }
}

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
  std::vector<std::string> notes;
  for (const CollectiveClass kind :
       {CollectiveClass::kAllReduce, CollectiveClass::kReduceScatter, CollectiveClass::kAllGather,
        CollectiveClass::kAllToAll, CollectiveClass::kBroadcast}) {
    runs.push_back(measure(world, options, kind));
    if (std::optional<std::string> note = make_fittable(runs.back())) {
      if (world.rank() == 0) std::fprintf(stderr, "warning: %s\n", note->c_str());
      notes.push_back(std::move(*note));
    }
  }
  // Bandwidths are fitted per class; the one base latency is the mean of the classes' fitted
  // alphas (calibrate_topology).
  Topology topology = calibrate_topology(base, runs);
  for (std::string& note : notes) topology.provenance.push_back(std::move(note));
  return topology;
}

}  // namespace canzona::sim
