// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// compose_step_plan: the DP decision of every buffer + the fragments, costs and owners of every
// matrix + the TP side of every DP rank (TP-SC, ASC or Canzona's micro-groups) = one StepPlan.
#include "plan_builder.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/cost_model.hpp>
#include <canzona/plan/dp_partition.hpp>
#include <canzona/plan/micro_groups.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace canzona::baselines::detail {

using plan::BufferPlan;
using plan::GradSync;
using plan::MatrixPlan;
using plan::MicroGroup;
using plan::MicroGroupItem;
using plan::MicroGroupMode;
using plan::MicroGroupOptions;
using plan::MicroGroupPlan;
using plan::ParamSync;
using plan::StepPlan;
using plan::StrategyOptions;
using plan::TpStrategy;

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;
constexpr double kFp32Bytes = 4.0;

optim::Shape matrix_shape(const std::vector<std::int64_t>& shape) {
  return optim::Shape{shape.at(0), shape.at(1)};
}

MicroGroupMode effective_mode(const StrategyOptions& options) {
  return options.tp == TpStrategy::kAsync ? MicroGroupMode::kNo : options.tp_schedule;
}

MatrixPlan make_matrix_plan(const model::ModelSpec& model, const layout::Zero1Layout& layout,
                            const StrategyOptions& options, std::size_t buffer_index,
                            std::size_t entry_index, int dp_owner) {
  const layout::BufferEntry& entry = layout.buffers[buffer_index].entries[entry_index];
  const model::ParamSpec& param = layout.params.at(entry.param_index);
  const int tp = layout.config.tp;
  MatrixPlan m;
  m.param_index = entry.param_index;
  m.buffer = buffer_index;
  m.entry = entry_index;
  m.name = entry.name;
  m.full = matrix_shape(param.shape);
  m.local = matrix_shape(entry.shape);
  m.tp_dim = tp > 1 ? param.tp_dim : model::kReplicated;
  m.fragments = plan::plan_fragments(param, model, options.split, tp);
  for (const model::Fragment& fragment : m.fragments) {
    const optim::StepCost step =
        optim::step_cost(options.optimizer, fragment.shape.at(0), fragment.shape.at(1));
    m.fragment_cost.push_back(fragment_cost(fragment, options));
    m.cost += m.fragment_cost.back();
    m.flops += step.mean_flops();
    m.state_bytes += step.state_bytes;
  }
  m.dp_owner = dp_owner;
  return m;
}

// The matrices DP rank d's TP group steps, model order.
std::vector<std::size_t> matrices_of_dp_rank(const std::vector<MatrixPlan>& matrices, int d) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    if (matrices[i].dp_owner == d || matrices[i].dp_owner == -1) out.push_back(i);
  }
  return out;
}

// The global schedule never splits a matrix: the capacity must hold the largest sharded one.
// Names that matrix, so the suggested capacity is enough for every matrix.
void check_capacity_fits(const StepPlan& plan, std::int64_t capacity) {
  const MatrixPlan* largest = nullptr;
  for (const MatrixPlan& m : plan.matrices) {
    if (m.sharded() && (largest == nullptr ||
                        m.full.rows * m.full.cols > largest->full.rows * largest->full.cols)) {
      largest = &m;
    }
  }
  if (largest == nullptr) return;
  const std::int64_t numel = largest->full.rows * largest->full.cols;
  if (numel <= capacity) return;
  // Rounded up to 1/100 MiB, so the suggestion itself always fits.
  const double needed_mib =
      std::ceil(static_cast<double>(numel) * kFp32Bytes / kBytesPerMiB * 100.0) / 100.0;
  throw ConfigError(fmt::format(
      "TP slot capacity {} MiB ({} fp32 elements) is below the largest matrix '{}' ({}x{}, "
      "{:.2f} MiB); the global schedule never splits a matrix: use --slot-mib >= {:.2f}, "
      "--slot-mib 0 (unbounded), or --tp-schedule slot (which promotes the capacity)",
      plan.options.slot_mib, capacity, largest->name, largest->full.rows, largest->full.cols,
      needed_mib, needed_mib));
}

// Forms the micro-groups of every DP rank and records each matrix's host and group.
void schedule_tp(StepPlan& plan) {
  const int dp = plan.dp();
  const int tp = plan.tp();
  plan.micro_groups.assign(static_cast<std::size_t>(dp), {});
  plan.replicated_matrices.assign(static_cast<std::size_t>(dp), {});
  const bool hosted = tp > 1 && plan.options.tp != TpStrategy::kReplicated;
  MicroGroupOptions group_options;
  group_options.mode = effective_mode(plan.options);
  group_options.capacity = plan::slot_capacity_elements(plan.options, tp);
  if (hosted && group_options.mode == MicroGroupMode::kGlobal && group_options.capacity > 0) {
    check_capacity_fits(plan, group_options.capacity);
  }
  for (int d = 0; d < dp; ++d) {
    std::vector<MicroGroupItem> items;
    for (std::size_t i : matrices_of_dp_rank(plan.matrices, d)) {
      const MatrixPlan& m = plan.matrices[i];
      if (!hosted || !m.sharded()) {
        plan.replicated_matrices[static_cast<std::size_t>(d)].push_back(i);
      } else {
        items.push_back(MicroGroupItem{i, m.cost, m.full.rows * m.full.cols});
      }
    }
    if (items.empty()) continue;
    const std::vector<MicroGroup> groups = plan::form_micro_groups(items, tp, group_options);
    auto& out = plan.micro_groups[static_cast<std::size_t>(d)];
    for (std::size_t g = 0; g < groups.size(); ++g) {
      MicroGroupPlan group;
      group.slots = groups[g].slots;
      group.max_slot_cost = groups[g].max_slot_cost();
      for (std::size_t slot = 0; slot < group.slots.size(); ++slot) {
        for (std::size_t i : group.slots[slot]) {
          // DP-SC matrices are scheduled identically by every DP rank (same items, pure
          // scheduler), so recording the host once is consistent.
          plan.matrices[i].tp_host = static_cast<int>(slot);
          plan.matrices[i].micro_group = static_cast<int>(g);
        }
      }
      out.push_back(std::move(group));
    }
  }
}

}  // namespace

double fragment_cost(const model::Fragment& fragment, const StrategyOptions& options) {
  if (options.cost == plan::CostKind::kNumel) return static_cast<double>(fragment.numel());
  return optim::step_cost(options.optimizer, fragment.shape.at(0), fragment.shape.at(1))
      .mean_flops();
}

StepPlan compose_step_plan(std::string strategy, const model::ModelSpec& model,
                           layout::Zero1Layout layout, const StrategyOptions& options,
                           std::vector<DpDecision> dp_decisions) {
  plan::validate(options);
  if (options.optimizer.kind == optim::OptimizerKind::kAdamW) {
    throw ConfigError(
        "a StepPlan schedules a matrix optimizer (muon, shampoo or soap); AdamW alone is the "
        "element-wise ZeRO-1 optimizer and needs no plan: pick --optimizer muon|shampoo|soap");
  }
  StepPlan plan;
  plan.strategy = std::move(strategy);
  plan.options = options;
  plan.layout = std::move(layout);
  if (dp_decisions.size() != plan.layout.buffers.size()) {
    throw Error(fmt::format("compose_step_plan: {} DP decisions for {} buffers",
                            dp_decisions.size(), plan.layout.buffers.size()));
  }
  for (std::size_t b = 0; b < plan.layout.buffers.size(); ++b) {
    const layout::Buffer& buffer = plan.layout.buffers[b];
    DpDecision& decision = dp_decisions[b];
    BufferPlan bp;
    bp.buffer = b;
    bp.matrix = std::any_of(buffer.entries.begin(), buffer.entries.end(),
                            [](const layout::BufferEntry& e) { return e.matrix; });
    bp.grad_sync = decision.grad_sync;
    bp.param_sync = decision.param_sync;
    bp.partition = std::move(decision.partition);
    bp.owner = std::move(decision.owner);
    if (bp.owner.size() != buffer.entries.size()) {
      throw Error(fmt::format("compose_step_plan: buffer '{}' has {} entries but {} owners",
                              buffer.name, buffer.entries.size(), bp.owner.size()));
    }
    plan.buffers.push_back(std::move(bp));
  }
  for (const BufferPlan& bp : plan.buffers) {
    if (!bp.matrix) continue;
    const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
    for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
      if (!buffer.entries[e].matrix) continue;
      plan.matrices.push_back(
          make_matrix_plan(model, plan.layout, options, bp.buffer, e, bp.owner[e]));
    }
  }
  std::sort(plan.matrices.begin(), plan.matrices.end(),
            [](const MatrixPlan& a, const MatrixPlan& b) { return a.param_index < b.param_index; });
  schedule_tp(plan);
  plan::check_plan(plan);
  return plan;
}

}  // namespace canzona::baselines::detail
