// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "case_plan.hpp"

#include <canzona/baselines/strategy.hpp>
#include <canzona/bench/plan_settings_flags.hpp>
#include <canzona/comm/types.hpp>
#include <canzona/core/error.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/plan/preset.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace canzona::bench::step {

namespace {

// The strategy options a plan depends on, as "key=value" (the spellings of `plan`'s flags).
std::vector<std::pair<std::string, std::string>> option_fields(const plan::StrategyOptions& o) {
  const model::SplitOptions& s = o.split;
  const std::string split = !s.qkv && !s.fc1 ? "none"
                                             : fmt::format("{}{}{}", s.qkv ? "qkv" : "",
                                                           s.qkv_per_head ? "+qkv-per-head" : "",
                                                           s.fc1 ? (s.qkv ? "+fc1" : "fc1") : "");
  std::vector<std::pair<std::string, std::string>> fields = {
      {"dp", std::string(plan::to_string(o.dp))},
      {"tp", std::string(plan::to_string(o.tp))},
      {"alpha", fmt::format("{}", o.alpha)},
      {"cost", std::string(plan::to_string(o.cost))},
      {"dp_balance", std::string(plan::to_string(o.dp_balance))},
      {"tp_schedule", std::string(plan::to_string(o.tp_schedule))},
      {"slot_mib", fmt::format("{}", o.slot_mib)},
      {"slot_unit", std::string(plan::to_string(o.slot_unit))},
      {"transport", std::string(plan::to_string(o.transport))},
      {"tp_execution", std::string(plan::to_string(o.tp_execution))},
      {"param_dtype", std::string(plan::dtype_name(o.precision.params))},
      {"grad_reduce_dtype", std::string(plan::dtype_name(o.precision.grad_reduce))},
      {"split", split},
      {"bucket_size", fmt::format("{}", o.zero1.bucket_size)}};
  if (o.optimizer.kind == optim::OptimizerKind::kMuon) {
    fields.emplace_back("ns_coefficients",
                        std::string(optim::to_string(o.optimizer.muon.coefficients)));
    fields.emplace_back("nesterov", o.optimizer.muon.nesterov ? "1" : "0");
  }
  return fields;
}

// The fields of `options` that differ from `defaults`, "k=v" joined by ','.
std::string changed_options(const plan::StrategyOptions& options,
                            const plan::StrategyOptions& defaults) {
  const auto given = option_fields(options);
  const auto standard = option_fields(defaults);
  std::vector<std::string> changed;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] != standard[i]) changed.push_back(given[i].first + "=" + given[i].second);
  }
  return fmt::format("{}", fmt::join(changed, ","));
}

int refresh_interval(const optim::OptimizerSpec& spec) {
  switch (spec.kind) {
    case optim::OptimizerKind::kShampoo:
      return spec.shampoo.refresh_interval;
    case optim::OptimizerKind::kSoap:
      return spec.soap.precondition_frequency;
    default:
      return 1;
  }
}

}  // namespace

struct PlanSettings::Impl {
  std::unique_ptr<bench::PlanSettingsFlags> flags;
  std::string text;
};

PlanSettings::PlanSettings(const std::string& flags) : impl_(std::make_unique<Impl>()) {
  CLI::App parser("plan settings");
  impl_->flags = std::make_unique<bench::PlanSettingsFlags>(parser);
  try {
    parser.parse(flags, /*program_name_included=*/false);
  } catch (const CLI::ParseError& e) {
    throw ConfigError(
        fmt::format("--canzona_plan='{}': {} (the flags of canzona-bench plan: "
                    "--plan-preset, --bucket-size, --cost, --slot-mib, --tp-execution, "
                    "--param-dtype, --grad-reduce-dtype, --split)",
                    flags, e.what()));
  }
  impl_->flags->preset();  // an unknown preset fails here, before any case
  impl_->text = impl_->flags->as_flags();
}

PlanSettings::~PlanSettings() = default;

const std::string& PlanSettings::flags() const { return impl_->text; }

struct CasePlan::Impl {
  plan::StepPlan plan;
  PlanFacts facts;
};

namespace {

// The options of a case: the strategy's sides, then the preset and its switches (applied where
// the sides read them: the suite plans several strategies), then the optimizer.
plan::StrategyOptions case_options(const StepCase& c, const bench::PlanSettingsFlags* settings) {
  plan::StrategyOptions options;
  baselines::apply_strategy(c.strategy, options);
  if (settings) {
    settings->apply(options, /*check_sides=*/false);
  } else {
    plan::apply_preset(plan::Preset::kMegatron, options);
  }
  options.optimizer.kind = optim::parse_optimizer_kind(c.optimizer);
  return options;
}

}  // namespace

CasePlan::CasePlan(const StepCase& c, int gpus_per_node, const PlanSettings& settings)
    : impl_(std::make_unique<Impl>()) {
  const model::ModelSpec spec = model::model_from_name(c.model);
  layout::ParallelConfig config;
  config.dp = c.dp;
  config.tp = c.tp;
  config.gpus_per_node = std::max(gpus_per_node, c.tp);
  const plan::StrategyOptions options = case_options(c, settings.impl().flags.get());
  impl_->plan = baselines::make_step_plan(spec, config, options);

  const plan::StepPlan& p = impl_->plan;
  const plan::PlanMetrics metrics = plan::plan_metrics(p);
  PlanFacts& f = impl_->facts;
  f.hash = fmt::format("{:016x}", plan::plan_hash(p));
  // Against the defaults resolved the same way (the bucket size follows dp).
  f.options =
      changed_options(p.options, baselines::resolved_options(config, case_options(c, nullptr)));
  f.imbalance = metrics.imbalance;
  for (const plan::RankLoad& rank : metrics.ranks) {
    f.state_bytes = std::max(f.state_bytes, static_cast<double>(rank.state_bytes));
    double sent = 0;
    for (std::size_t i = 0; i < kCommPhases.size(); ++i) {
      const auto phase =
          static_cast<double>(rank.bytes_sent[static_cast<std::size_t>(kCommPhases[i])]);
      f.max_bytes_sent[i] = std::max(f.max_bytes_sent[i], phase);
      sent += phase;
    }
    f.comm_bytes = std::max(f.comm_bytes, sent);
  }
  f.refresh_interval = refresh_interval(p.options.optimizer);
}

CasePlan::~CasePlan() = default;

const PlanFacts& CasePlan::facts() const { return impl_->facts; }

const plan::StepPlan& step_plan(const CasePlan& plan) { return plan.impl().plan; }

namespace {

/// Elements of the plan's ZeRO-1 buffers (parameters, and gradients alike), padding included.
double buffer_elements(const plan::StepPlan& p) {
  double elements = 0;
  for (const layout::Buffer& b : p.layout.buffers) elements += static_cast<double>(b.total);
  return elements;
}

}  // namespace

double estimated_rank_bytes(const CasePlan& plan) {
  const plan::StepPlan& p = plan.impl().plan;
  const double buffers = buffer_elements(p);
  const auto full = [&](std::size_t m) {
    const optim::Shape& shape = p.matrices[m].full;
    return static_cast<double>(shape.rows) * static_cast<double>(shape.cols);
  };
  double largest_group = 0;  // full elements of the largest micro-group or TP-SC matrix
  for (const auto& groups : p.micro_groups) {
    for (const plan::MicroGroupPlan& group : groups) {
      double elements = 0;
      for (const auto& slot : group.slots) {
        for (const std::size_t m : slot) elements += full(m);
      }
      largest_group = std::max(largest_group, elements);
    }
  }
  // Full elements of the matrices the busiest rank steps: the optimizers' batched workspaces.
  double stepped = 0;
  for (int dp = 0; dp < p.dp(); ++dp) {
    for (int tp = 0; tp < p.tp(); ++tp) {
      double elements = 0;
      for (std::size_t m = 0; m < p.matrices.size(); ++m) {
        const plan::MatrixPlan& matrix = p.matrices[m];
        if ((matrix.dp_owner == -1 || matrix.dp_owner == dp) &&
            (matrix.tp_host == -1 || matrix.tp_host == tp)) {
          elements += full(m);
          if (matrix.tp_host == -1 && matrix.sharded()) {
            largest_group = std::max(largest_group, full(m));  // a TP-SC gather
          }
        }
      }
      stepped = std::max(stepped, elements);
    }
  }
  const double staging = 3 * 2 * largest_group + largest_group;  // ring of [grad, param] sets
  constexpr double kWorkspacePerElement = 8;  // Newton–Schulz iterates, eigensolver scratch
  // Model parameters and gradients in their types; fp32 main parameters of what the rank steps.
  const double buffer_bytes =
      buffers * static_cast<double>(comm::size_of(p.options.precision.params) +
                                    comm::size_of(p.options.precision.grad_reduce));
  return 1.1 * (buffer_bytes + 4 * (staging + stepped + kWorkspacePerElement * stepped) +
                plan.facts().state_bytes);
}

double kept_gradient_bytes(const CasePlan& plan) {
  const plan::StepPlan& p = plan.impl().plan;
  return buffer_elements(p) * static_cast<double>(comm::size_of(p.options.precision.grad_reduce));
}

int default_refresh_interval(const std::string& optimizer) {
  optim::OptimizerSpec spec;
  spec.kind = optim::parse_optimizer_kind(optimizer);
  if (spec.kind == optim::OptimizerKind::kAdamW) {
    throw ConfigError(
        "--canzona_optimizers: adamw has no step plan (it is the element-wise ZeRO-1 optimizer "
        "that every row runs on the non-matrix parameters); choose from muon, shampoo, soap");
  }
  return refresh_interval(spec);
}

void check_strategy(const std::string& strategy) {
  plan::StrategyOptions options;
  baselines::apply_strategy(strategy, options);
}

}  // namespace canzona::bench::step
