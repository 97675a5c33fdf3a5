// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench project`: the projected optimizer-step latency of one or more strategies on an
// emulated cluster (a topology preset or file), from the same StepPlans the executor runs.
// Compute comes from the optimizer cost model over the topology's device profile, or is measured
// on a local backend; collectives come from the topology's alpha-beta model.
#include <canzona/bench/flag_checks.hpp>
#include <canzona/bench/plan_settings_flags.hpp>
#include <canzona/model/model_argument.hpp>
#include "commands.hpp"
#include "optimizer_flags.hpp"
#include "project_report.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/plan/cost.hpp>
#include <canzona/plan/partition_memo.hpp>
#include <canzona/plan/step_plan.hpp>
#include <canzona/sim/compute_model.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace canzona::harness {
namespace {

struct ProjectOptions {
  std::string model;
  int gpus = 0;
  int tp = 1;
  std::unique_ptr<OptimizerFlags> optimizer;
  std::vector<std::string> strategies = {"canzona", "sc", "layerwise"};
  std::string topology = "dgx-h100";
  std::string compute = "auto";
  std::string backend = "cpu";
  std::string compute_cache;
  int measure_steps = 5;
  std::optional<double> alpha;
  std::optional<std::string> transport;
  std::unique_ptr<bench::PlanSettingsFlags> preset;
  std::vector<double> gemm_efficiency;
  std::string uneven = "grouped";
  bool per_rank = false;
  bool json = false;
  bool markdown = false;
  std::string out;
};

layout::ParallelConfig parallel_config(const ProjectOptions& o, const model::ModelSpec& spec,
                                       const sim::Topology& topology) {
  if (o.gpus % o.tp != 0) {
    throw ConfigError(
        fmt::format("--gpus {} is not a multiple of --tp {}; dp = gpus / tp must be "
                    "a whole number",
                    o.gpus, o.tp));
  }
  layout::ParallelConfig config;
  config.dp = o.gpus / o.tp;
  config.tp = o.tp;
  config.gpus_per_node = topology.gpus_per_node;
  layout::validate(config, spec);
  return config;
}

plan::StrategyOptions strategy_options(const ProjectOptions& o, const std::string& strategy) {
  plan::StrategyOptions options;
  try {
    baselines::apply_strategy(strategy, options);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--strategy: {}", e.what()));
  }
  // Several strategies: settings apply where their sides read them.
  o.preset->apply(options, /*check_sides=*/false);
  options.optimizer = o.optimizer->spec(options.optimizer);
  if (o.alpha) options.alpha = *o.alpha;
  if (o.transport) options.transport = plan::parse_tp_transport(*o.transport);
  plan::validate(options);
  return options;
}

// The compute source: the cost model needs the topology's device profile; measuring needs a
// local backend. "auto" prefers the device profile (a projection onto hardware we do not have).
bool measures(const ProjectOptions& o, const sim::Topology& topology) {
  return o.compute == "measured" || (o.compute == "auto" && !topology.device);
}

// Cost-model compute at GEMM efficiency `efficiency` (0: the topology's own), or measured
// compute on the local backend.
sim::ComputeSource make_compute(const ProjectOptions& o, const sim::Topology& topology,
                                double efficiency) {
  if (measures(o, topology)) {
    // Measuring runs real optimizer steps on this machine, one shape after another, for seconds
    // to minutes; say what is measured, why, and how to avoid repeating it.
    const std::string why =
        o.compute == "measured"
            ? std::string("--compute measured")
            : fmt::format("topology '{}' has no \"device\" section, so --compute auto measures",
                          topology.name);
    std::clog << fmt::format(
        "project: measuring optimizer steps on the {} backend ({}); every distinct matrix shape "
        "runs {} timed step(s){}\n",
        o.backend, why, o.measure_steps,
        o.compute_cache.empty() ? "; --compute-cache FILE keeps the results for the next run"
                                : fmt::format(", cached in {}", o.compute_cache));
  } else {
    return sim::cost_model_source(topology, efficiency,
                                  "--compute cost-model needs one: add a \"device\" section to "
                                  "the topology file or use --compute measured");
  }
  sim::MeasureOptions measure;
  measure.steps = o.measure_steps;
  const auto start = std::chrono::steady_clock::now();
  measure.on_measured = [start](const std::string& key, double seconds, int shapes) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    std::clog << fmt::format("project: [{} measured, {:.0f} s] {}: {:.3f} ms per step\n", shapes,
                             elapsed.count(), key, seconds * 1e3);
  };
  return sim::measured_source(o.backend, measure, o.compute_cache);
}

// --strategy as a list: "a,b" and repeated flags, split here rather than by CLI11, which drops
// empty items (so "canzona,,sc" would silently lose one).
std::vector<std::string> strategy_list(const ProjectOptions& o) {
  std::vector<std::string> names;
  for (const std::string& value : o.strategies) {
    std::size_t begin = 0;
    for (std::size_t comma; (comma = value.find(',', begin)) != std::string::npos;
         begin = comma + 1) {
      names.push_back(value.substr(begin, comma - begin));
    }
    names.push_back(value.substr(begin));
  }
  return names;
}

void check_flags(const ProjectOptions& o) {
  for (const std::string& strategy : strategy_list(o)) {
    if (strategy.empty()) {
      throw ConfigError(
          "--strategy: the list has an empty name (two commas in a row, or one at an end); give "
          "names such as canzona,sc,layerwise");
    }
  }
  if (o.per_rank && !o.json) {
    throw ConfigError(
        "--per-rank adds every rank's timeline to the JSON output; it needs --json (the text "
        "and Markdown tables show the straggler rank only)");
  }
}

// A projection is a sum of finite, validated constants; a non-finite time means an input
// (topology constant, measured time) was absurd enough to overflow, and printing it would
// publish nonsense.
void check_finite(const std::vector<sim::Projection>& projections, const sim::Topology& topology) {
  for (const sim::Projection& p : projections) {
    if (!std::isfinite(p.step_seconds) || !std::isfinite(p.optimizer_seconds)) {
      throw ConfigError(fmt::format(
          "the projection of '{}' on topology '{}' is not finite (step {} s); check the "
          "topology's latencies and bandwidths",
          p.strategy, topology.name, p.step_seconds));
    }
  }
}

// The GEMM efficiencies of the band, low to high; empty for measured compute.
std::vector<double> efficiency_band(const ProjectOptions& o, const sim::Topology& topology) {
  if (measures(o, topology)) {
    if (!o.gemm_efficiency.empty()) {
      throw ConfigError(
          "--gemm-efficiency applies to cost-model compute; measured compute has no assumed "
          "efficiency (drop the flag or use --compute cost-model)");
    }
    return {};
  }
  std::vector<double> band = o.gemm_efficiency;
  if (band.empty()) {
    // Centred on the device profile's efficiency, the one `run`'s projected rows use, so both
    // commands print the same number for the same configuration.
    const double e = topology.device->gemm_efficiency;
    const auto permille = [](double v) { return std::round(v * 1000.0) / 1000.0; };
    band = {permille(e * 2.0 / 3.0), e, std::min(1.0, permille(e * 4.0 / 3.0))};
  }
  for (std::size_t i = 0; i < band.size(); ++i) {
    if (!(band[i] > 0 && band[i] <= 1) || (i > 0 && band[i] <= band[i - 1])) {
      throw ConfigError(fmt::format(
          "--gemm-efficiency {}: give increasing fractions in (0, 1], e.g. 0.4,0.55,0.7",
          fmt::join(band, ",")));
    }
  }
  return band;
}

std::string settings_line(const plan::StepPlan& plan) {
  const plan::StrategyOptions& o = plan.options;
  const std::string_view warning = plan::cost_proxy_warning(o.cost, o.optimizer.kind);
  std::vector<std::string_view> split;
  if (o.split.qkv) split.push_back(o.split.qkv_per_head ? "qkv per head" : "qkv");
  if (o.split.fc1) split.push_back("fc1");
  return fmt::format(
      "bucket {} elements, cost {}, DP balance {}, slot {}, TP execution {}, {} params / {} "
      "gradient reduction, split {}{}",
      plan.layout.options.bucket_size, plan::to_string(o.cost), plan::to_string(o.dp_balance),
      plan::describe_slot(o), plan::to_string(o.tp_execution), plan::dtype_name(o.precision.params),
      plan::dtype_name(o.precision.grad_reduce),
      split.empty() ? std::string("none") : fmt::format("{}", fmt::join(split, ", ")),
      warning.empty() ? std::string() : fmt::format("; {}", warning));
}

int project(const ProjectOptions& o, std::ostream& out) {
  check_flags(o);
  if (!o.out.empty()) {
    io::check_output_file(o.out, "--out", {o.model, o.topology, o.compute_cache});
  }
  const model::ModelSpec spec = model::resolve_model(o.model);
  const sim::Topology topology = sim::resolve_topology(o.topology);
  const layout::ParallelConfig config = parallel_config(o, spec, topology);
  std::vector<double> efficiencies = efficiency_band(o, topology);
  if (efficiencies.empty()) efficiencies.push_back(0.0);  // measured: one set
  const std::vector<std::string> strategies = strategy_list(o);
  // Large jobs (MoE models on 1024 GPUs, measured compute) take seconds: past one second each
  // step says what it does, on stderr; quick projections print nothing extra.
  const auto started = std::chrono::steady_clock::now();
  const std::size_t steps = strategies.size() * (2 + efficiencies.size());
  std::size_t step = 0;
  const auto progress = [&](const std::string& what) {
    ++step;
    if (std::chrono::steady_clock::now() - started > std::chrono::seconds(1)) {
      std::cerr << fmt::format("project: {} ({}/{})\n", what, step, steps) << std::flush;
    }
  };
  // Plans first: every flag error surfaces before any (possibly slow) measurement. Strategies
  // that cut their buffers alike share the partitions.
  const plan::RememberedPartitions remembered;
  std::vector<plan::StepPlan> plans;
  for (const std::string& strategy : strategies) {
    progress("planning " + strategy);
    plans.push_back(baselines::make_step_plan(spec, config, strategy_options(o, strategy)));
  }

  sim::ProjectionOptions projection;
  projection.uneven = sim::parse_uneven_collectives(o.uneven);
  // What does not depend on compute is built once per plan and serves every efficiency.
  std::vector<std::unique_ptr<sim::PreparedProjection>> prepared;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    progress("preparing the timeline of " + strategies[i]);
    prepared.push_back(std::make_unique<sim::PreparedProjection>(plans[i], topology, projection));
  }
  std::vector<ProjectionBand> bands;
  ProjectionContext context;
  for (const double efficiency : efficiencies) {
    sim::ComputeSource compute = make_compute(o, topology, efficiency);
    ProjectionBand band;
    band.efficiency = efficiency;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      progress(efficiency > 0 ? fmt::format("projecting {} at {:g} % GEMM efficiency",
                                            strategies[i], efficiency * 100)
                              : "projecting " + strategies[i]);
      band.projections.push_back(prepared[i]->project(*compute.model));
    }
    check_finite(band.projections, topology);
    if (compute.cache && !o.compute_cache.empty()) compute.cache->save(o.compute_cache);
    if (bands.size() == efficiencies.size() / 2) {
      context.compute_source = compute.model->description();
    }
    bands.push_back(std::move(band));
  }

  context.model = spec.display_name;
  context.optimizer = std::string(optim::to_string(o.optimizer->spec().kind));
  context.gpus = config.world();
  context.dp = config.dp;
  context.tp = config.tp;
  context.topology = topology;
  context.preset = o.preset->use();
  context.settings = settings_line(plans.front());
  std::string text;
  if (o.json) {
    text = fmt::format("{}\n", projection_document(context, bands, o.per_rank).dump(2));
  } else if (o.markdown) {
    text = format_projection_markdown(context, bands);
  } else {
    text = format_projection_table(context, bands);
  }
  if (o.out.empty()) {
    out << text;
  } else {
    io::write_file_atomically(o.out, text);
    out << fmt::format("projection written to {}\n", o.out);
  }
  return kExitOk;
}

}  // namespace

CommandAction add_project_command(CLI::App& app) {
  auto o = std::make_shared<ProjectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "project",
      "Project the optimizer-step latency of strategies on an emulated cluster (a PROJECTION: "
      "alpha-beta collectives, cost-model or locally measured compute)");
  cmd->add_option("--model", o->model, "Catalog name (see 'models') or JSON model spec file")
      ->required();
  cmd->add_option("--gpus", o->gpus, "Total GPUs (dp = gpus / tp)")
      ->required()
      ->check(bench::integer_in(bench::kRanks));
  cmd->add_option("--tp", o->tp, "Tensor-parallel size")
      ->capture_default_str()
      ->check(bench::integer_in(bench::kRanks));
  o->optimizer = std::make_unique<OptimizerFlags>(*cmd);
  cmd->add_option("--strategy", o->strategies,
                  fmt::format("Strategies, comma-separated: {} or <dp>+<tp>",
                              fmt::join(baselines::strategy_names(), ", ")))
      ->capture_default_str();
  cmd->add_option("--topology", o->topology,
                  fmt::format("Preset ({}) or topology JSON file (see lib/sim/README.md)",
                              fmt::join(sim::topology_preset_names(), ", ")))
      ->capture_default_str();
  cmd->add_option("--compute", o->compute,
                  "auto (cost model when the topology has a device profile, else measured), "
                  "cost-model, or measured (on --backend)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "cost-model", "measured"}));
  cmd->add_option("--backend", o->backend, "Backend that measures compute: cpu or cuda")
      ->capture_default_str()
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--compute-cache", o->compute_cache,
                  "JSON file caching measured step times (read, then rewritten atomically)");
  cmd->add_option("--measure-steps", o->measure_steps, "Timed steps per measured shape")
      ->capture_default_str()
      ->check(bench::integer_in({1, 1000}));
  cmd->add_option("--alpha", o->alpha, "Canzona DP balance alpha in [0, 1] (default 1)")
      ->check(bench::real_in(bench::kUnitInterval));
  cmd->add_option("--transport", o->transport,
                  "TP transport: all-to-all (default) or gather-scatter");
  o->preset = std::make_unique<bench::PlanSettingsFlags>(*cmd);
  cmd->add_option("--gemm-efficiency", o->gemm_efficiency,
                  "Cost-model compute: GEMM efficiencies of the band every ratio is given for, "
                  "low to high (default: the topology's device efficiency x2/3, x1, x4/3, "
                  "0.4,0.6,0.8 on dgx-h100; the table shows the middle one)")
      ->delimiter(',');
  cmd->add_option("--uneven", o->uneven,
                  "Uneven reduce-scatter / all-gather: grouped (rooted reduce / broadcast per "
                  "part, as lib/comm runs them) or padded (parts padded to the largest)")
      ->capture_default_str()
      ->check(CLI::IsMember({"grouped", "padded"}));
  cmd->add_flag("--per-rank", o->per_rank, "With --json: every rank's timeline");
  CLI::Option* json = cmd->add_flag("--json", o->json, "Print JSON instead of text");
  cmd->add_flag("--markdown", o->markdown, "Print a Markdown table instead of text")
      ->excludes(json);
  cmd->add_option("--out", o->out, "Write the output to this file (atomically) instead of stdout");
  return [o](std::ostream& out) { return project(*o, out); };
}

}  // namespace canzona::harness
