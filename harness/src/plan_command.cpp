// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench plan`: the layout a strategy gives a model on a parallel configuration.
#include "commands.hpp"
#include "model_argument.hpp"

#include <canzona/core/error.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/layout/format.hpp>
#include <canzona/layout/json.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/json.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <memory>
#include <ostream>
#include <string_view>

namespace canzona::harness {
namespace {

constexpr std::array<std::string_view, 1> kStrategies = {"zero1"};

struct PlanOptions {
  std::string model;
  std::string strategy = "zero1";
  int dp = 0;
  int tp = 1;
  int gpus = 0;  // 0: not given
  int gpus_per_node = 8;
  std::int64_t bucket_size = 0;  // 0: Megatron's default
  bool high_busbw_padding = false;
  bool single_buffer = false;
  bool verbose = false;
  bool json = false;
};

void check_strategy(const std::string& strategy) {
  for (std::string_view known : kStrategies) {
    if (strategy == known) return;
  }
  throw ConfigError(
      fmt::format("unknown strategy '{}'; available: {}", strategy, fmt::join(kStrategies, ", ")));
}

int plan(const PlanOptions& options, std::ostream& out) {
  check_strategy(options.strategy);
  const model::ModelSpec spec = resolve_model(options.model);
  layout::ParallelConfig config;
  config.dp = options.dp;
  config.tp = options.tp;
  config.gpus_per_node = options.gpus_per_node;
  layout::validate(config, spec);
  if (options.gpus != 0) layout::validate_world(config, options.gpus);

  layout::Zero1Options zero1;
  zero1.bucket_size = options.bucket_size;
  zero1.pad_for_high_nccl_busbw = options.high_busbw_padding;
  zero1.separate_matrix_buffer = !options.single_buffer;
  const layout::Zero1Layout result = layout::build_zero1_layout(spec, config, zero1);

  if (options.json) {
    nlohmann::json document = {{"strategy", options.strategy},
                               {"model", spec},
                               {"parallel",
                                {{"dp", config.dp},
                                 {"tp", config.tp},
                                 {"gpus", config.world()},
                                 {"gpus_per_node", config.gpus_per_node}}},
                               {"zero1", result}};
    out << document.dump(2) << "\n";
  } else {
    out << fmt::format("plan: {} on {} GPUs (dp {} x tp {}, {} GPUs per node), strategy {}\n\n",
                       spec.display_name, config.world(), config.dp, config.tp,
                       config.gpus_per_node, options.strategy);
    out << layout::format_zero1_layout(result, options.verbose);
  }
  return kExitOk;
}

}  // namespace

CommandAction add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Show how a strategy lays out and partitions a model's parameters");
  cmd->add_option("--model", options->model, "Catalog name (see 'models') or JSON model spec file")
      ->required();
  cmd->add_option("--strategy", options->strategy, "Strategy: zero1")->capture_default_str();
  cmd->add_option("--dp", options->dp, "Data-parallel size")
      ->required()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--tp", options->tp, "Tensor-parallel size")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--gpus", options->gpus, "Total GPUs; must equal dp x tp when given")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--gpus-per-node", options->gpus_per_node, "GPUs per node (TP stays inside one)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--bucket-size", options->bucket_size,
                  "ZeRO-1 bucket size in elements (default: Megatron's max(4e7, 1e6 x dp))")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--high-busbw-padding", options->high_busbw_padding,
                "Pad buckets to lcm(dp, 128, 65536) as Megatron's pad_buckets_for_high_nccl_busbw");
  cmd->add_flag("--single-buffer", options->single_buffer,
                "One buffer for all parameters instead of matrix and AdamW buffers");
  cmd->add_flag("--verbose", options->verbose, "List every parameter and the ranks it spans");
  cmd->add_flag("--json", options->json, "Print JSON instead of text");
  return [options](std::ostream& out) { return plan(*options, out); };
}

}  // namespace canzona::harness
