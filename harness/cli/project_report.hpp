// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The output of `canzona-bench project`: a text table (one row per strategy, phases of the
// straggler rank), Canzona's projected speed-ups with their GEMM-efficiency band (the headline
// against NVIDIA layer-wise, the external baseline the paper links), what the projection cannot
// know, and the JSON document; all labelled as projections with the topology they assume.
#pragma once

#include <canzona/plan/preset.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include <canzona/bench/plan_settings_flags.hpp>

namespace canzona::harness {

/// What was projected, for the header of every view.
struct ProjectionContext {
  std::string model;      ///< display name
  std::string optimizer;  ///< "muon", ...
  int gpus = 0;
  int dp = 0;
  int tp = 0;
  sim::Topology topology;
  std::string compute_source;  ///< ComputeModel::description() of the middle band
  bench::PlanSettingsUse preset;
  std::string settings;  ///< one line: bucket size, cost, slot, TP execution, precision, split
};

/// The projections of every strategy at one GEMM efficiency (cost-model compute), or the only
/// set (measured compute: efficiency 0).
struct ProjectionBand {
  double efficiency = 0;
  std::vector<sim::Projection> projections;
};

/// The label of a strategy in tables: `sc` and `canzona+sc` say which reading of the paper's
/// SC they are.
std::string strategy_label(const std::string& strategy);

/// The text view: a header (model, job, topology, compute source, preset, the word
/// "projection"), one row per strategy at the middle band, Canzona's speed-ups over each other
/// strategy at every band (layer-wise first), and the unknowns.
std::string format_projection_table(const ProjectionContext& context,
                                    const std::vector<ProjectionBand>& bands);

/// The same content as a Markdown document (for results/ tables).
std::string format_projection_markdown(const ProjectionContext& context,
                                       const std::vector<ProjectionBand>& bands);

/// {"projection": true, "model", "optimizer", "gpus", "dp", "tp", "preset", "topology",
///  "compute_source", "unknowns", "strategies": [projection_json(...) of the middle band],
///  "bands": [{"gemm_efficiency", "strategies": [...]}, ...] (cost-model compute),
///  "canzona_speedup_vs": {"layerwise": {"step": x, "optimizer": y, "band": {...}}, ...}}.
nlohmann::json projection_document(const ProjectionContext& context,
                                   const std::vector<ProjectionBand>& bands, bool per_rank);

}  // namespace canzona::harness
