// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "project_report.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace canzona::harness {
namespace {

const sim::Projection* find_strategy(const std::vector<sim::Projection>& projections,
                                     const std::string& name) {
  const auto it = std::find_if(projections.begin(), projections.end(),
                               [&](const sim::Projection& p) { return p.strategy == name; });
  return it == projections.end() ? nullptr : &*it;
}

double ms(double seconds) { return seconds * 1e3; }

}  // namespace

std::string format_projection_table(const ProjectionContext& c,
                                    const std::vector<sim::Projection>& projections) {
  std::string out = fmt::format(
      "PROJECTION (not a measurement): {} · {} · {} GPUs (dp {} x tp {}) on topology '{}'\n",
      c.model, c.optimizer, c.gpus, c.dp, c.tp, c.topology.name);
  if (!c.topology.description.empty())
    out += fmt::format("  cluster:     {}\n", c.topology.description);
  out += fmt::format(
      "  collectives: alpha-beta model, NVLink inside a node ({} GPUs), IB NICs across nodes\n",
      c.topology.gpus_per_node);
  out += fmt::format("  compute:     {}\n", c.compute_source);
  if (!projections.empty()) {
    out += fmt::format("  uneven RS/AG: {}\n", sim::to_string(projections.front().uneven));
  }
  out +=
      "  phases: ms on the straggler rank (comm phases: collective durations; exposed = comm\n"
      "  not hidden behind that rank's kernels); optimizer_ms hides DP grad sync and bucketed\n"
      "  param all-gather behind backward / forward as Megatron overlaps them\n\n";

  out += fmt::format(
      "{:<22} {:>10} {:>12} {:>9} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9} {:>9} "
      "{:>10} {:>9}\n",
      "strategy", "step_ms", "optimizer_ms", "grad_sync", "update", "tp_gather", "compute",
      "tp_scatter", "param_sync", "exposed", "idle", "straggler", "imbalance");
  for (const sim::Projection& p : projections) {
    const sim::RankTimeline& s = p.straggler;
    out += fmt::format(
        "{:<22} {:>10.2f} {:>12.2f} {:>9.2f} {:>8.2f} {:>9.2f} {:>9.2f} {:>10.2f} {:>10.2f} "
        "{:>9.2f} {:>9.2f} {:>10} {:>9.3f}\n",
        p.strategy, ms(p.step_seconds), ms(p.optimizer_seconds), ms(s.phases.grad_sync),
        ms(s.phases.update), ms(s.phases.tp_gather), ms(s.phases.compute), ms(s.phases.tp_scatter),
        ms(s.phases.param_sync), ms(s.exposed_comm), ms(s.idle),
        fmt::format("{}:{}", s.dp_rank, s.tp_rank), p.compute_imbalance);
  }
  if (const sim::Projection* canzona = find_strategy(projections, "canzona")) {
    std::string lines;
    for (const sim::Projection& p : projections) {
      if (&p == canzona || canzona->step_seconds <= 0) continue;
      lines += fmt::format(
          "  canzona vs {:<20} {:>7.2f}x step   {:>7.2f}x optimizer_ms\n", p.strategy,
          p.step_seconds / canzona->step_seconds,
          canzona->optimizer_seconds > 0 ? p.optimizer_seconds / canzona->optimizer_seconds : 0.0);
    }
    if (!lines.empty()) out += fmt::format("\nspeed-up (projected):\n{}", lines);
  }
  out += "\nstraggler = dp_rank:tp_rank of the rank whose last kernel ends latest\n";
  return out;
}

std::string format_projection_markdown(const ProjectionContext& c,
                                       const std::vector<sim::Projection>& projections) {
  std::string out = fmt::format(
      "# PROJECTION: {} · {} · {} GPUs (dp {} × tp {}) on `{}`\n\n"
      "**A projection, not a measurement.**\n\n"
      "- cluster: {} ({} GPUs per node)\n"
      "- collectives: alpha-beta model of the topology (NVLink inside a node, IB NICs across)\n"
      "- compute: {}\n",
      c.model, c.optimizer, c.gpus, c.dp, c.tp, c.topology.name, c.topology.description,
      c.topology.gpus_per_node, c.compute_source);
  if (!projections.empty()) {
    out += fmt::format("- uneven reduce-scatter / all-gather: {}\n",
                       sim::to_string(projections.front().uneven));
  }
  out += fmt::format(
      "- step_ms: DP grad sync → AdamW → TP pipeline → DP param sync, until the last rank ends; "
      "optimizer_ms: the same with DP grad sync and bucketed param all-gather hidden behind "
      "backward / forward (Megatron's overlap)\n- phases: ms on the straggler rank "
      "(dp_rank:tp_rank whose last kernel ends latest); exposed = communication not hidden "
      "behind that rank's kernels\n\n");
  out +=
      "| strategy | step_ms | optimizer_ms | grad_sync | update | tp_gather | compute | "
      "tp_scatter | param_sync | exposed | idle | straggler | imbalance |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const sim::Projection& p : projections) {
    const sim::RankTimeline& s = p.straggler;
    out += fmt::format(
        "| {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | "
        "{:.2f} | {}:{} | {:.3f} |\n",
        p.strategy, ms(p.step_seconds), ms(p.optimizer_seconds), ms(s.phases.grad_sync),
        ms(s.phases.update), ms(s.phases.tp_gather), ms(s.phases.compute), ms(s.phases.tp_scatter),
        ms(s.phases.param_sync), ms(s.exposed_comm), ms(s.idle), s.dp_rank, s.tp_rank,
        p.compute_imbalance);
  }
  if (const sim::Projection* canzona = find_strategy(projections, "canzona")) {
    std::string rows;
    for (const sim::Projection& p : projections) {
      if (&p == canzona || canzona->step_seconds <= 0 || canzona->optimizer_seconds <= 0) continue;
      rows += fmt::format("| canzona vs {} | {:.2f}× | {:.2f}× |\n", p.strategy,
                          p.step_seconds / canzona->step_seconds,
                          p.optimizer_seconds / canzona->optimizer_seconds);
    }
    if (!rows.empty()) {
      out += fmt::format("\n| projected speed-up | step_ms | optimizer_ms |\n|---|---:|---:|\n{}",
                         rows);
    }
  }
  return out;
}

nlohmann::json projection_document(const ProjectionContext& c,
                                   const std::vector<sim::Projection>& projections, bool per_rank) {
  nlohmann::json strategies = nlohmann::json::array();
  for (const sim::Projection& p : projections) {
    strategies.push_back(sim::projection_json(p, per_rank));
  }
  nlohmann::json document = {{"projection", true},
                             {"model", c.model},
                             {"optimizer", c.optimizer},
                             {"gpus", c.gpus},
                             {"dp", c.dp},
                             {"tp", c.tp},
                             {"topology", c.topology},
                             {"compute_source", c.compute_source},
                             {"strategies", std::move(strategies)}};
  if (const sim::Projection* canzona = find_strategy(projections, "canzona")) {
    nlohmann::json speedups = nlohmann::json::object();
    for (const sim::Projection& p : projections) {
      if (&p == canzona || canzona->step_seconds <= 0) continue;
      speedups[p.strategy] = {{"step", p.step_seconds / canzona->step_seconds},
                              {"optimizer", canzona->optimizer_seconds > 0
                                                ? p.optimizer_seconds / canzona->optimizer_seconds
                                                : 0.0}};
    }
    document["canzona_speedup_vs"] = std::move(speedups);
  }
  return document;
}

}  // namespace canzona::harness
