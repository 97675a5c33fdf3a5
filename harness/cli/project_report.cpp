// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "project_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace canzona::harness {
namespace {

// What no projection of the optimizer step can know; named once in every view.
constexpr std::string_view kUnknowns =
    "the GPU model of any run this is compared with, the fabric (NICs, switches, congestion), "
    "the TP size, the sequence length and forward / backward (not modelled: a projected step "
    "ratio is not an end-to-end speed-up such as the paper's 1.57x, arXiv 2602.06079 abstract), "
    "and whether that run "
    "split fused matrices";

// Which ratio answers which published figure; said under every speed-up table.
constexpr std::string_view kComparability =
    "optimizer_ms ratios are the paper's metric (the optimizer step with the DP sync hidden): "
    "comparable in kind with its 5.8x (arXiv 2602.06079, abstract, baseline and model not stated "
    "there); step ratios include the DP sync, which no figure of the paper measures";

const sim::Projection* find_strategy(const std::vector<sim::Projection>& projections,
                                     const std::string& name) {
  const auto it = std::find_if(projections.begin(), projections.end(),
                               [&](const sim::Projection& p) { return p.strategy == name; });
  return it == projections.end() ? nullptr : &*it;
}

double ms(double seconds) { return seconds * 1e3; }

const ProjectionBand& middle(const std::vector<ProjectionBand>& bands) {
  return bands.at(bands.size() / 2);
}

// The strategies Canzona is compared with, layer-wise (the external baseline the paper links in
// its footnote 1) first.
std::vector<std::string> baselines_of(const std::vector<sim::Projection>& projections) {
  std::vector<std::string> out;
  if (find_strategy(projections, "layerwise") != nullptr) out.push_back("layerwise");
  for (const sim::Projection& p : projections) {
    if (p.strategy != "canzona" && p.strategy != "layerwise") out.push_back(p.strategy);
  }
  return out;
}

struct Ratio {
  double step = 0;
  double optimizer = 0;
};

// Baseline time over Canzona's in one band; 0 where Canzona's time is 0.
Ratio ratio(const ProjectionBand& band, const std::string& baseline) {
  const sim::Projection* c = find_strategy(band.projections, "canzona");
  const sim::Projection* b = find_strategy(band.projections, baseline);
  Ratio r;
  if (c == nullptr || b == nullptr) return r;
  if (c->step_seconds > 0) r.step = b->step_seconds / c->step_seconds;
  if (c->optimizer_seconds > 0) r.optimizer = b->optimizer_seconds / c->optimizer_seconds;
  return r;
}

bool banded(const std::vector<ProjectionBand>& bands) { return bands.front().efficiency > 0; }

std::string efficiencies(const std::vector<ProjectionBand>& bands) {
  std::vector<std::string> parts;
  for (const ProjectionBand& b : bands) parts.push_back(fmt::format("{:g} %", b.efficiency * 100));
  return fmt::format("{}", fmt::join(parts, " / "));
}

// "1.20x / 1.35x / 1.48x" over the bands.
std::string band_ratios(const std::vector<ProjectionBand>& bands, const std::string& baseline,
                        bool step) {
  std::vector<std::string> parts;
  for (const ProjectionBand& b : bands) {
    const Ratio r = ratio(b, baseline);
    parts.push_back(fmt::format("{:.2f}x", step ? r.step : r.optimizer));
  }
  return fmt::format("{}", fmt::join(parts, " / "));
}

}  // namespace

std::string strategy_label(const std::string& strategy) {
  if (strategy == "sc") {
    return "sc (DP-SC + TP-SC, fully replicated: its ratio is a FLOP ratio, about GPUs / the "
           "largest-matrix floor)";
  }
  if (strategy == "canzona+sc") return "canzona+sc (TP-SC only: the other reading of SC)";
  if (strategy == "layerwise") {
    return "layerwise (NVIDIA layer-wise, a baseline of the paper: its footnote 1)";
  }
  return strategy;
}

std::string format_projection_table(const ProjectionContext& c,
                                    const std::vector<ProjectionBand>& bands) {
  const std::vector<sim::Projection>& projections = middle(bands).projections;
  std::string out = fmt::format(
      "PROJECTION (not a measurement): {} · {} · {} GPUs (dp {} x tp {}) on topology '{}'\n",
      c.model, c.optimizer, c.gpus, c.dp, c.tp, c.topology.name);
  if (!c.topology.description.empty())
    out += fmt::format("  cluster:     {}\n", c.topology.description);
  out += fmt::format(
      "  collectives: alpha-beta model, NVLink inside a node ({} GPUs), IB NICs across nodes\n",
      c.topology.gpus_per_node);
  out += fmt::format("  compute:     {}\n", c.compute_source);
  out += fmt::format("  preset:      {}{}\n", plan::to_string(c.preset.preset),
                     c.preset.overrides.empty()
                         ? std::string()
                         : fmt::format(" (overridden by {})", fmt::join(c.preset.overrides, ", ")));
  out += fmt::format("  settings:    {}\n", c.settings);
  if (!projections.empty()) {
    out += fmt::format("  uneven RS/AG: {}\n", sim::to_string(projections.front().uneven));
  }
  out +=
      "  phases: ms on the straggler rank (comm phases: collective durations; exposed = comm\n"
      "  not hidden behind that rank's kernels); optimizer_ms hides DP grad sync and bucketed\n"
      "  param all-gather behind backward / forward as Megatron overlaps them\n";
  if (banded(bands)) {
    out += fmt::format("  table at GEMM efficiency {:g} %; speed-ups at {}\n",
                       middle(bands).efficiency * 100, efficiencies(bands));
  }
  out += "\n";

  // One column per phase, named and ordered as every other result names them.
  const auto phase_width = [](std::string_view name) {
    return std::max<std::size_t>(name.size(), 8);
  };
  out += fmt::format("{:<22} {:>10} {:>12}", "strategy", "step_ms", "optimizer_ms");
  for (const std::string_view phase : sim::phase_names()) {
    out += fmt::format(" {:>{}}", phase, phase_width(phase));
  }
  out += fmt::format(" {:>9} {:>9} {:>10} {:>9}\n", "exposed", plan::kIdleName, "straggler",
                     "imbalance");
  for (const sim::Projection& p : projections) {
    const sim::RankTimeline& s = p.straggler;
    out += fmt::format("{:<22} {:>10.2f} {:>12.2f}", p.strategy, ms(p.step_seconds),
                       ms(p.optimizer_seconds));
    for (std::size_t i = 0; i < sim::phase_names().size(); ++i) {
      out += fmt::format(" {:>{}.2f}", ms(sim::phase_value(s.phases, i)),
                         phase_width(sim::phase_names()[i]));
    }
    out += fmt::format(" {:>9.2f} {:>9.2f} {:>10} {:>9.3f}\n", ms(s.exposed_comm), ms(s.idle),
                       fmt::format("{}:{}", s.dp_rank, s.tp_rank), p.compute_imbalance);
  }
  if (find_strategy(projections, "canzona") != nullptr) {
    std::string lines;
    for (const std::string& b : baselines_of(projections)) {
      lines += fmt::format("  canzona vs {}\n      step {}   optimizer_ms {}\n", strategy_label(b),
                           band_ratios(bands, b, true), band_ratios(bands, b, false));
    }
    if (!lines.empty()) {
      out += fmt::format(
          "\nspeed-up (projected{}):\n{}  {}\n",
          banded(bands) ? fmt::format(", GEMM efficiency {}", efficiencies(bands)) : std::string(),
          lines, kComparability);
    }
  }
  out += "\nstraggler = dp_rank:tp_rank of the rank whose last kernel ends latest\n";
  out += fmt::format("not known to this projection: {}\n", kUnknowns);
  return out;
}

std::string format_projection_markdown(const ProjectionContext& c,
                                       const std::vector<ProjectionBand>& bands) {
  const std::vector<sim::Projection>& projections = middle(bands).projections;
  std::string out = fmt::format(
      "# PROJECTION: {} · {} · {} GPUs (dp {} × tp {}) on `{}`\n\n"
      "**A projection, not a measurement.**\n\n"
      "- cluster: {} ({} GPUs per node)\n"
      "- collectives: alpha-beta model of the topology (NVLink inside a node, IB NICs across)\n"
      "- compute: {}\n"
      "- preset: `{}`{}\n"
      "- settings: {}\n",
      c.model, c.optimizer, c.gpus, c.dp, c.tp, c.topology.name, c.topology.description,
      c.topology.gpus_per_node, c.compute_source, plan::to_string(c.preset.preset),
      c.preset.overrides.empty()
          ? std::string()
          : fmt::format(" (overridden by `{}`)", fmt::join(c.preset.overrides, " ")),
      c.settings);
  if (!projections.empty()) {
    out += fmt::format("- uneven reduce-scatter / all-gather: {}\n",
                       sim::to_string(projections.front().uneven));
  }
  out += fmt::format(
      "- step_ms: DP grad sync → AdamW → TP pipeline → DP param sync, until the last rank ends; "
      "optimizer_ms: the same with DP grad sync and bucketed param all-gather hidden behind "
      "backward / forward (Megatron's overlap)\n- phases: ms on the straggler rank "
      "(dp_rank:tp_rank whose last kernel ends latest); exposed = communication not hidden "
      "behind that rank's kernels\n");
  if (banded(bands)) {
    out += fmt::format("- table at GEMM efficiency {:g} %; speed-ups at {}\n",
                       middle(bands).efficiency * 100, efficiencies(bands));
  }
  out += fmt::format("- not known to this projection: {}\n\n", kUnknowns);
  out +=
      "| strategy | step_ms | optimizer_ms | grad_sync | update | tp_gather | compute | "
      "tp_scatter | param_sync | exposed | idle | straggler | imbalance |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const sim::Projection& p : projections) {
    const sim::RankTimeline& s = p.straggler;
    out += fmt::format(
        "| {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | "
        "{:.2f} | {}:{} | {:.3f} |\n",
        strategy_label(p.strategy), ms(p.step_seconds), ms(p.optimizer_seconds),
        ms(s.phases.grad_sync), ms(s.phases.update), ms(s.phases.tp_gather), ms(s.phases.compute),
        ms(s.phases.tp_scatter), ms(s.phases.param_sync), ms(s.exposed_comm), ms(s.idle), s.dp_rank,
        s.tp_rank, p.compute_imbalance);
  }
  if (find_strategy(projections, "canzona") != nullptr) {
    std::string rows;
    for (const std::string& b : baselines_of(projections)) {
      rows += fmt::format("| canzona vs {} | {} | {} |\n", strategy_label(b),
                          band_ratios(bands, b, true), band_ratios(bands, b, false));
    }
    if (!rows.empty()) {
      out += fmt::format(
          "\n| projected speed-up{} | step_ms | optimizer_ms |\n|---|---:|---:|\n{}\n{}.\n",
          banded(bands) ? fmt::format(" (GEMM efficiency {})", efficiencies(bands)) : std::string(),
          rows, kComparability);
    }
  }
  return out;
}

nlohmann::json projection_document(const ProjectionContext& c,
                                   const std::vector<ProjectionBand>& bands, bool per_rank) {
  const auto strategies_json = [&](const ProjectionBand& band) {
    nlohmann::json list = nlohmann::json::array();
    for (const sim::Projection& p : band.projections) {
      nlohmann::json j = sim::projection_json(p, per_rank);
      j["label"] = strategy_label(p.strategy);
      list.push_back(std::move(j));
    }
    return list;
  };
  nlohmann::json document = {{"projection", true},
                             {"model", c.model},
                             {"optimizer", c.optimizer},
                             {"gpus", c.gpus},
                             {"dp", c.dp},
                             {"tp", c.tp},
                             {"preset",
                              {{"name", plan::to_string(c.preset.preset)},
                               {"source", plan::preset_source(c.preset.preset)},
                               {"overrides", c.preset.overrides}}},
                             {"settings", c.settings},
                             {"topology", c.topology},
                             {"compute_source", c.compute_source},
                             {"unknowns", kUnknowns},
                             {"comparability", kComparability},
                             {"strategies", strategies_json(middle(bands))}};
  if (banded(bands)) {
    document["gemm_efficiency"] = middle(bands).efficiency;
    nlohmann::json list = nlohmann::json::array();
    for (const ProjectionBand& band : bands) {
      list.push_back({{"gemm_efficiency", band.efficiency}, {"strategies", strategies_json(band)}});
    }
    document["bands"] = std::move(list);
  }
  if (find_strategy(middle(bands).projections, "canzona") != nullptr) {
    nlohmann::json speedups = nlohmann::json::object();
    for (const std::string& b : baselines_of(middle(bands).projections)) {
      const Ratio mid = ratio(middle(bands), b);
      nlohmann::json entry = {
          {"label", strategy_label(b)}, {"step", mid.step}, {"optimizer", mid.optimizer}};
      if (banded(bands)) {
        nlohmann::json band = nlohmann::json::array();
        for (const ProjectionBand& pb : bands) {
          const Ratio r = ratio(pb, b);
          band.push_back(
              {{"gemm_efficiency", pb.efficiency}, {"step", r.step}, {"optimizer", r.optimizer}});
        }
        entry["band"] = std::move(band);
      }
      speedups[b] = std::move(entry);
    }
    document["canzona_speedup_vs"] = std::move(speedups);
  }
  return document;
}

}  // namespace canzona::harness
