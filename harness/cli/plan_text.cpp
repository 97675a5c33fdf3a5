// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_text.hpp"

#include <canzona/plan/cost.hpp>

#include <canzona/layout/format.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/plan/preset.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "plan_rank_table.hpp"
#include "plan_units.hpp"

namespace canzona::harness {
namespace {

using Out = std::back_insert_iterator<std::string>;

constexpr std::size_t kSlicesWidth = 100;  // wrap bucket slice lists after this many characters

std::string optimizer_text(const optim::OptimizerSpec& spec) {
  switch (spec.kind) {
    case optim::OptimizerKind::kMuon:
      return fmt::format("muon ({} Newton-Schulz steps, {} coefficients, {})", spec.muon.ns_steps,
                         optim::to_string(spec.muon.coefficients),
                         optim::to_string(spec.muon.ns_precision));
    case optim::OptimizerKind::kShampoo:
      return fmt::format("shampoo (inverse roots every {} steps, max preconditioned side {})",
                         spec.shampoo.refresh_interval, spec.shampoo.max_precond_dim);
    case optim::OptimizerKind::kSoap:
      return fmt::format("soap (eigenbases every {} steps, max preconditioned side {})",
                         spec.soap.precondition_frequency, spec.soap.max_precond_dim);
    case optim::OptimizerKind::kAdamW:
      return "adamw (every parameter element-wise)";
  }
  return "?";
}

std::string split_text(const model::SplitOptions& split) {
  std::vector<std::string_view> parts;
  if (split.qkv) parts.push_back(split.qkv_per_head ? "qkv per head" : "qkv");
  if (split.fc1) parts.push_back("fc1");
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

void print_header(Out it, const PlanReport& report) {
  const plan::StepPlan& p = report.plan;
  const plan::StrategyOptions& o = p.options;
  const layout::ParallelConfig& c = p.layout.config;
  const bool canzona_dp = o.dp == plan::DpStrategy::kCanzona;
  const bool canzona_tp = o.tp == plan::TpStrategy::kCanzona;
  const bool transported = o.tp != plan::TpStrategy::kReplicated;
  const bool slotted = canzona_tp && (o.tp_schedule == plan::MicroGroupMode::kSlot ||
                                      o.tp_schedule == plan::MicroGroupMode::kGlobal);
  fmt::format_to(it, "plan: {} on {} (dp {} x tp {}, {} per node)\n", report.model.display_name,
                 counted(static_cast<std::size_t>(c.world()), "GPU"), c.dp, c.tp,
                 counted(static_cast<std::size_t>(c.gpus_per_node), "GPU"));
  fmt::format_to(it, "  {:<10} {} = dp {} + tp {}{}\n", "strategy", p.strategy,
                 plan::to_string(o.dp), plan::to_string(o.tp),
                 c.tp == 1 ? " (tp 1: no TP side)" : "");
  fmt::format_to(it, "  {:<10} {}\n", "optimizer", optimizer_text(o.optimizer));
  fmt::format_to(it, "  {:<10} {} ({}){}\n", "preset", plan::to_string(report.preset.preset),
                 plan::preset_source(report.preset.preset),
                 report.preset.overrides.empty()
                     ? std::string()
                     : fmt::format("; overridden by {}", fmt::join(report.preset.overrides, ", ")));
  // Settings a side does not read print as "-": they did not shape this plan.
  fmt::format_to(
      it,
      "  {:<10} cost {}  alpha {}  dp balance {}  tp schedule {}  slot {}  transport {}  tp "
      "execution {}  split {}\n",
      "settings", plan::to_string(o.cost), canzona_dp ? fmt::format("{:g}", o.alpha) : "-",
      canzona_dp ? std::string(plan::to_string(o.dp_balance)) : "-",
      canzona_tp ? std::string(plan::to_string(o.tp_schedule)) : "-",
      !slotted ? "-" : plan::describe_slot(o),
      transported ? std::string(plan::to_string(o.transport)) : "-",
      transported ? std::string(plan::to_string(o.tp_execution)) : "-", split_text(o.split));
  if (const std::string_view warning = plan::cost_proxy_warning(o.cost, o.optimizer.kind);
      !warning.empty()) {
    fmt::format_to(it, "  {:<10} {}\n", "warning", warning);
  }
  fmt::format_to(it, "  {:<10} {} model parameters, {} gradient reduction{}\n", "precision",
                 plan::dtype_name(o.precision.params), plan::dtype_name(o.precision.grad_reduce),
                 o.precision.params == comm::DataType::kBFloat16
                     ? ", fp32 main parameters and state on the owner"
                     : "");
  std::vector<std::string> buffers;
  for (const layout::Buffer& b : p.layout.buffers) {
    buffers.push_back(fmt::format("{} ({})", b.name, counted(b.buckets.size(), "bucket")));
  }
  fmt::format_to(it, "  {:<10} {}; bucket size {} elements{}\n", "buffers",
                 fmt::join(buffers, ", "), p.layout.options.bucket_size,
                 p.layout.options.pad_for_high_nccl_busbw ? ", high-busbw padding" : "");
}

void print_summary(Out it, const PlanReport& report) {
  const plan::PlanMetrics& m = report.metrics;
  const Unit unit = cost_unit(report.plan.options.cost, std::max(m.max_cost, m.lower_bound));
  const int tp = report.plan.tp();
  std::size_t busiest = 0;
  std::int64_t max_state = 0;
  for (std::size_t r = 0; r < m.ranks.size(); ++r) {
    if (m.ranks[r].cost > m.ranks[busiest].cost) busiest = r;
    max_state = std::max(max_state, m.ranks[r].state_bytes);
  }
  double largest_fragment = 0;
  for (const plan::MatrixPlan& matrix : report.plan.matrices) {
    for (double c : matrix.fragment_cost) largest_fragment = std::max(largest_fragment, c);
  }
  const std::string u = unit.name;
  fmt::format_to(it, "\nSummary\n");
  fmt::format_to(it, "  {:<18} {:>12.4f}  max / mean matrix cost over {}\n", "imbalance",
                 m.imbalance, counted(m.ranks.size(), "rank"));
  fmt::format_to(it,
                 "  {:<18} {:>12.3f}  {}: max(sum of matrix cost / ranks = {:.3f}, largest "
                 "fragment = {:.3f})\n",
                 "lower bound", m.lower_bound / unit.scale, u,
                 mean_distinct_cost(report) / unit.scale, largest_fragment / unit.scale);
  fmt::format_to(it, "  {:<18} {:>12.3f}  {}: rank {} (dp {}, tp {})\n", "busiest rank",
                 m.max_cost / unit.scale, u, busiest, busiest / static_cast<std::size_t>(tp),
                 busiest % static_cast<std::size_t>(tp));
  fmt::format_to(it, "  {:<18} {:>12.4f}\n", "max / lower bound", m.max_over_lower_bound);
  fmt::format_to(it, "  {:<18} {:>12.4f}  max(1, largest fragment / mean rank cost)\n",
                 "imbalance floor", m.imbalance_floor);
  fmt::format_to(it, "  {:<18} {:>12.4f}  max / mean FLOPs\n", "flops imbalance",
                 m.flops_imbalance);
  fmt::format_to(it, "  {:<18} {:>12}  MiB on the fullest rank (matrix states + AdamW slices)\n",
                 "optimizer state", mib(static_cast<double>(max_state)));
  std::size_t max_groups = 0;
  for (const auto& groups : report.plan.micro_groups)
    max_groups = std::max(max_groups, groups.size());
  fmt::format_to(it, "  {:<18} {:>12}  TP micro-groups of the DP rank with the most\n",
                 "micro-groups", max_groups);
  fmt::format_to(it, "  {:<18} {:>12}\n", "plan hash", hash_hex(report.hash));
  fmt::format_to(it, "  {:<18} {:>12.1f}  ms (wall, this machine)\n", "planning time",
                 report.planning_ms);
}

// The non-empty slices as "r<rank> [begin, end)" in elements from the bucket start, wrapped under
// `indent` spaces. Equivalent to the cut list, but Canzona's cuts leave most slices of a bucket
// empty, and a list of repeated cut positions hides who owns what.
std::string slice_list(const plan::BucketCuts& cuts, std::size_t indent) {
  std::string out;
  std::size_t line = 0;
  for (std::size_t r = 0; r + 1 < cuts.pos.size(); ++r) {
    if (cuts.pos[r + 1] == cuts.pos[r]) continue;
    const std::string slice = fmt::format("r{} [{}, {})", r, cuts.pos[r] - cuts.pos.front(),
                                          cuts.pos[r + 1] - cuts.pos.front());
    if (line > 0 && line + 2 + slice.size() > kSlicesWidth) {
      out += "\n" + std::string(indent, ' ');
      line = 0;
    } else if (line > 0) {
      out += "  ";
      line += 2;
    }
    out += slice;
    line += slice.size();
  }
  return out;
}

void print_buckets(Out it, const PlanReport& report) {
  const plan::StepPlan& p = report.plan;
  for (const plan::BufferPlan& bp : p.buffers) {
    const layout::Buffer& buffer = p.layout.buffers[bp.buffer];
    fmt::format_to(it,
                   "\nBuckets of buffer '{}': {}, {} ({}); grad sync {}, param "
                   "sync {}, partition {}\n",
                   buffer.name, counted(buffer.buckets.size(), "bucket"),
                   counted(buffer.entries.size(), "param"),
                   bp.matrix ? "matrix optimizer" : "adamw", plan::to_string(bp.grad_sync),
                   plan::to_string(bp.param_sync), bp.partition.method);
    if (bp.grad_sync == plan::GradSync::kAllReduce) {
      // No DP cuts to show: every rank all-reduces each whole bucket; who steps what is in the
      // matrix table, the bucket boundaries in --layout.
      fmt::format_to(it, "  every bucket is all-reduced whole: no DP cuts{}\n",
                     bp.matrix ? "; owners in the matrix table below" : "");
      continue;
    }
    fmt::format_to(it, "  {:>6} {:>12} {:>11} {:>7} {:>7}  {}\n", "bucket", "start", "size",
                   "params", "owners",
                   "slices [begin, end) per DP rank, elements from the bucket start");
    constexpr std::size_t kSlicesIndent = 2 + 6 + 1 + 12 + 1 + 11 + 1 + 7 + 1 + 7 + 2;
    for (const plan::BucketCuts& cuts : bp.partition.buckets) {
      const layout::Bucket& bucket = buffer.buckets[static_cast<std::size_t>(cuts.bucket)];
      const int ranks = static_cast<int>(cuts.pos.size()) - 1;
      int nonempty = 0;
      for (int r = 0; r < ranks; ++r) nonempty += cuts.slice(r) > 0 ? 1 : 0;
      const std::string detail = cuts.even() ? fmt::format("even, {} x {}", ranks, cuts.slice(0))
                                             : slice_list(cuts, kSlicesIndent);
      fmt::format_to(it, "  {:>6} {:>12} {:>11} {:>7} {:>7}  {}\n", bucket.index, bucket.start,
                     bucket.size(), bucket.num_entries(), fmt::format("{}/{}", nonempty, ranks),
                     detail);
    }
  }
}

std::string owner_text(int owner) { return owner < 0 ? "all" : fmt::format("{}", owner); }

void print_matrices(Out it, const PlanReport& report) {
  const plan::StepPlan& p = report.plan;
  double max_cost = 0;
  std::size_t name_width = 6;
  for (const plan::MatrixPlan& m : p.matrices) {
    max_cost = std::max(max_cost, m.cost);
    name_width = std::max(name_width, m.name.size());
  }
  const Unit unit = cost_unit(p.options.cost, max_cost);
  fmt::format_to(it,
                 "\nMatrices: {} stepped by {}; dp = DP rank whose TP group steps it, tp = TP "
                 "rank that gathers and steps it ('all': every rank of that group does)\n",
                 p.matrices.size(), optim::to_string(p.options.optimizer.kind));
  const std::string cost_header = fmt::format("cost {}", unit.name);
  fmt::format_to(it, "  {:<{}} {:>13} {:>13} {:>5} {:>12} {:>4} {:>4} {:>5}\n", "matrix",
                 name_width, "full", "local", "frags", cost_header, "dp", "tp", "group");
  for (const plan::MatrixPlan& m : p.matrices) {
    fmt::format_to(it, "  {:<{}} {:>13} {:>13} {:>5} {:>12.3f} {:>4} {:>4} {:>5}\n", m.name,
                   name_width, fmt::format("{}x{}", m.full.rows, m.full.cols),
                   fmt::format("{}x{}", m.local.rows, m.local.cols), m.fragments.size(),
                   m.cost / unit.scale, owner_text(m.dp_owner),
                   p.tp() == 1 ? std::string("-") : owner_text(m.tp_host),
                   m.micro_group < 0 ? std::string("-") : fmt::format("{}", m.micro_group));
  }
}

}  // namespace

std::string format_plan_text(const PlanReport& report, const PlanViewFlags& view) {
  std::string out;
  auto it = std::back_inserter(out);
  print_header(it, report);
  print_summary(it, report);
  out += format_rank_tables(report, view.all_ranks);
  print_buckets(it, report);
  print_matrices(it, report);
  if (view.layout || view.verbose) {
    out += "\n";
    out += layout::format_zero1_layout(report.plan.layout, view.verbose);
  }
  return out;
}

}  // namespace canzona::harness
