// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench project`: the projected optimizer-step latency of one or more strategies on an
// emulated cluster (a topology preset or file), from the same StepPlans the executor runs.
// Compute comes from the optimizer cost model over the topology's device profile, or is measured
// on a local backend; collectives come from the topology's alpha-beta model.
#include "commands.hpp"
#include "flag_checks.hpp"
#include "model_argument.hpp"
#include "optimizer_flags.hpp"
#include "project_report.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/plan/step_plan.hpp>
#include <canzona/sim/compute_model.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

#include <fmt/format.h>

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
  std::optional<std::string> cost;
  std::optional<double> slot_mib;
  std::optional<std::string> transport;
  std::int64_t bucket_size = 0;
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
  options.optimizer = o.optimizer->spec();
  try {
    baselines::apply_strategy(strategy, options);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("--strategy: {}", e.what()));
  }
  if (o.alpha) options.alpha = *o.alpha;
  if (o.cost) options.cost = plan::parse_cost_kind(*o.cost);
  if (o.slot_mib) options.slot_mib = *o.slot_mib;
  if (o.transport) options.transport = plan::parse_tp_transport(*o.transport);
  options.zero1.bucket_size = o.bucket_size;
  plan::validate(options);
  return options;
}

// The compute source: the cost model needs the topology's device profile; measuring needs a
// local backend. "auto" prefers the device profile (a projection onto hardware we do not have).
struct ComputeSource {
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<sim::ComputeCache> cache;
  std::unique_ptr<sim::ComputeModel> model;
};

ComputeSource make_compute(const ProjectOptions& o, const sim::Topology& topology) {
  ComputeSource source;
  const bool measured = o.compute == "measured" || (o.compute == "auto" && !topology.device);
  if (measured) {
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
  }
  if (!measured) {
    if (!topology.device) {
      throw ConfigError(fmt::format(
          "--compute cost-model needs a device profile, but topology '{}' has none; add a "
          "\"device\" section to the topology file or use --compute measured",
          topology.name));
    }
    source.model = std::make_unique<sim::CostModelCompute>(*topology.device);
    return source;
  }
  source.backend = backend::make_backend(o.backend);
  source.cache = std::make_unique<sim::ComputeCache>(o.backend);
  if (!o.compute_cache.empty()) source.cache->load(o.compute_cache);
  sim::MeasureOptions measure;
  measure.steps = o.measure_steps;
  const auto start = std::chrono::steady_clock::now();
  measure.on_measured = [start](const std::string& key, double seconds, int shapes) {
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    std::clog << fmt::format("project: [{} measured, {:.0f} s] {}: {:.3f} ms per step\n", shapes,
                             elapsed.count(), key, seconds * 1e3);
  };
  source.model =
      std::make_unique<sim::MeasuredCompute>(*source.backend, measure, source.cache.get());
  return source;
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

int project(const ProjectOptions& o, std::ostream& out) {
  check_flags(o);
  const model::ModelSpec spec = resolve_model(o.model);
  const sim::Topology topology = sim::resolve_topology(o.topology);
  const layout::ParallelConfig config = parallel_config(o, spec, topology);
  // Plans first: every flag error surfaces before any (possibly slow) measurement.
  std::vector<plan::StepPlan> plans;
  for (const std::string& strategy : strategy_list(o)) {
    plans.push_back(baselines::make_step_plan(spec, config, strategy_options(o, strategy)));
  }
  ComputeSource compute = make_compute(o, topology);

  sim::ProjectionOptions projection;
  projection.uneven = sim::parse_uneven_collectives(o.uneven);
  std::vector<sim::Projection> projections;
  for (const plan::StepPlan& plan : plans) {
    projections.push_back(sim::project(plan, topology, *compute.model, projection));
  }
  if (compute.cache && !o.compute_cache.empty()) compute.cache->save(o.compute_cache);
  check_finite(projections, topology);

  ProjectionContext context;
  context.model = spec.display_name;
  context.optimizer = std::string(optim::to_string(o.optimizer->spec().kind));
  context.gpus = config.world();
  context.dp = config.dp;
  context.tp = config.tp;
  context.topology = topology;
  context.compute_source = compute.model->description();
  std::string text;
  if (o.json) {
    text = fmt::format("{}\n", projection_document(context, projections, o.per_rank).dump(2));
  } else if (o.markdown) {
    text = format_projection_markdown(context, projections);
  } else {
    text = format_projection_table(context, projections);
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
      ->check(integer_in(kRanks));
  cmd->add_option("--tp", o->tp, "Tensor-parallel size")
      ->capture_default_str()
      ->check(integer_in(kRanks));
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
      ->check(integer_in({1, 1000}));
  cmd->add_option("--alpha", o->alpha, "Canzona DP balance alpha in [0, 1] (default 1)")
      ->check(real_in(kUnitInterval));
  cmd->add_option("--cost", o->cost, "Balancing cost: flops (default) or numel");
  cmd->add_option("--slot-mib", o->slot_mib,
                  "Canzona TP micro-group slot capacity, MiB of fp32 (default 0 = unbounded)")
      ->check(real_in(kNonNegative));
  cmd->add_option("--transport", o->transport,
                  "TP transport: all-to-all (default) or gather-scatter");
  cmd->add_option("--bucket-size", o->bucket_size,
                  "ZeRO-1 bucket size in elements (default: Megatron's max(4e7, 1e6 x dp))")
      ->check(integer_in(kAtLeastOne));
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
