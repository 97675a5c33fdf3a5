// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench plan`: the StepPlan a strategy gives a model on a (dp, tp) job — who steps
// which matrix, the bucket cuts, the bytes every rank moves — and how balanced it is.
#include <canzona/baselines/strategy.hpp>
#include <canzona/harness/cli.hpp>
#include <canzona/model/model_argument.hpp>

#include <chrono>
#include <memory>
#include <ostream>

#include "commands.hpp"
#include "plan_flags.hpp"
#include "plan_json.hpp"
#include "plan_report.hpp"
#include "plan_text.hpp"

namespace canzona::harness {
namespace {

PlanReport make_report(const PlanFlags& flags) {
  PlanReport report;
  report.model = model::resolve_model(flags.model());
  const layout::ParallelConfig config = flags.parallel_config(report.model);
  const plan::StrategyOptions options = flags.strategy_options();
  const auto start = std::chrono::steady_clock::now();
  report.plan = baselines::make_step_plan(report.model, config, options);
  report.planning_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  report.metrics = plan::plan_metrics(report.plan);
  report.hash = plan::plan_hash(report.plan);
  report.preset = flags.preset_use();
  return report;
}

int plan(const PlanFlags& flags, std::ostream& out) {
  const PlanReport report = make_report(flags);
  if (flags.view().json) {
    out << plan_json(report).dump(2) << "\n";
  } else {
    out << format_plan_text(report, flags.view());
  }
  return kExitOk;
}

}  // namespace

CommandAction add_plan_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Plan one optimizer step of a strategy: per-rank cost and imbalance, bucket cuts, matrix "
      "owners, bytes per collective");
  auto flags = std::make_shared<PlanFlags>(*cmd);
  return [flags](std::ostream& out) { return plan(*flags, out); };
}

}  // namespace canzona::harness
