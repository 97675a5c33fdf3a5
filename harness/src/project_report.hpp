// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The output of `canzona-bench project`: a text table (one row per strategy, phases of the
// straggler rank, speed-ups of Canzona) and the JSON document, both labelled as projections with
// the topology they assume.
#pragma once

#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace canzona::harness {

/// What was projected, for the header of both views.
struct ProjectionContext {
  std::string model;      ///< display name
  std::string optimizer;  ///< "muon", ...
  int gpus = 0;
  int dp = 0;
  int tp = 0;
  sim::Topology topology;
  std::string compute_source;  ///< ComputeModel::description()
};

/// The text view: a header (model, job, topology, compute source, the word "projection"), one
/// row per strategy and, when "canzona" is among them, its speed-up over each other strategy.
std::string format_projection_table(const ProjectionContext& context,
                                    const std::vector<sim::Projection>& projections);

/// The same content as a Markdown document (for results/ tables): a header block and a table
/// with one row per strategy, then the speed-ups.
std::string format_projection_markdown(const ProjectionContext& context,
                                       const std::vector<sim::Projection>& projections);

/// {"projection": true, "model", "optimizer", "gpus", "dp", "tp", "topology": {...},
///  "compute_source", "strategies": [projection_json(...) ...],
///  "canzona_speedup_vs": {"sc": {"step": x, "optimizer": y}, ...}} (when canzona is projected).
nlohmann::json projection_document(const ProjectionContext& context,
                                   const std::vector<sim::Projection>& projections, bool per_rank);

}  // namespace canzona::harness
