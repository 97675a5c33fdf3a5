// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "iteration_projection.hpp"

#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/flops.hpp>
#include <canzona/sim/collective_model.hpp>
#include <canzona/sim/topology.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace canzona::bench::e2e {

ProjectedIteration project_iteration(const E2ECase& c, const step::ProjectedStep& step,
                                     const std::string& topology, int micro_batches) {
  const sim::Topology t = sim::resolve_topology(topology);
  if (!t.device) {
    throw ConfigError(fmt::format(
        "topology '{}' has no device profile, so forward and backward cannot be projected; add "
        "a \"device\" section or use a preset",
        t.name));
  }
  const model::ModelSpec spec = model::model_from_name(c.step.model);
  const int tp = c.step.tp;

  // Forward and backward of one DP rank's micro-batches on one TP rank.
  const double rate = t.device->bf16_tflops * 1e12 * t.device->gemm_efficiency;
  const double flops =
      model::training_flops(spec, static_cast<std::int64_t>(micro_batches) * c.mbs, c.seq) / tp;
  const double forward = flops / 3 / rate;
  const double backward = 2 * flops / 3 / rate;

  // Megatron's TP all-reduces of one micro-batch's activations (bf16).
  double tp_comm = 0;
  if (tp > 1) {
    std::vector<int> group(static_cast<std::size_t>(tp));
    std::iota(group.begin(), group.end(), 0);
    const sim::GroupPlacement placement = sim::place_group(group, t.gpus_per_node);
    const double bytes = 2.0 * c.mbs * c.seq * static_cast<double>(spec.hidden_size);
    const double one = sim::estimate_collective(
                           t, sim::CollectiveClass::kAllReduce,
                           bytes * sim::bus_factor(sim::CollectiveClass::kAllReduce, tp), placement)
                           .seconds;
    const int per_micro_batch = 4 * spec.num_layers + 2;
    tp_comm = one * per_micro_batch * micro_batches;
  }

  // The DP sync Megatron overlaps: hidden up to the compute it overlaps with.
  const double hidden = step.step_seconds - step.optimizer_seconds;
  const double window = (forward + backward) / micro_batches;
  const double exposed = std::max(0.0, hidden - window);

  ProjectedIteration p;
  IterationCounters& k = p.counters;
  k.forward_seconds = forward;
  k.backward_seconds = backward;
  k.tp_comm_seconds = tp_comm;
  k.dp_sync_exposed_seconds = exposed;
  k.step_seconds = step.step_seconds;
  k.optimizer_exposed_seconds = step.optimizer_seconds;
  k.iteration_seconds = forward + backward + tp_comm + step.optimizer_seconds + exposed;
  p.topology = step.topology;
  p.compute = step.compute;
  p.gemm_efficiency = t.device->gemm_efficiency;
  return p;
}

}  // namespace canzona::bench::e2e
