// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The per-rank two-stream timeline of a StepPlan (see projector.hpp for the semantics).
#include "canzona/sim/projector.hpp"

#include "canzona/sim/collective_model.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <numeric>
#include <optional>

namespace canzona::sim {
namespace {

using plan::Phase;
using plan::PlannedCollective;

constexpr double kUnset = -1.0;

struct CommOp {
  PlannedCollective collective;
  int instance = -1;
  std::vector<int> deps;  // compute tasks of the same rank
  double start = kUnset;
  double end = kUnset;
};

struct Task {
  bool adamw = false;
  double seconds = 0;
  std::vector<int> deps;  // collectives of the same rank
  double start = kUnset;
  double end = kUnset;
};

struct Instance {
  std::vector<std::pair<int, int>> members;  // (global rank, op index on that rank)
  double seconds = 0;
  bool hideable = false;  // overlappable DP sync (see ProjectionOptions)
  int arrived = 0;
  double ready = 0;
};

struct RankWork {
  int dp_rank = 0;
  int tp_rank = 0;
  std::vector<CommOp> ops;
  std::vector<Task> tasks;
};

// Everything about the step that does not depend on time.
struct StepModel {
  std::vector<RankWork> ranks;
  std::vector<Instance> instances;
};

bool is_matrix_buffer(const plan::StepPlan& plan, std::size_t buffer) {
  return buffer < plan.buffers.size() && plan.buffers[buffer].matrix;
}

// Mean seconds of one step of matrix m (Σ over its fragments), computed once per matrix.
class MatrixSeconds {
 public:
  MatrixSeconds(const plan::StepPlan& plan, ComputeModel& compute)
      : plan_(plan), compute_(compute), cache_(plan.matrices.size()) {}

  double operator()(std::size_t m) {
    if (!cache_[m]) {
      double total = 0;
      for (const model::Fragment& f : plan_.matrices[m].fragments) {
        CANZONA_CHECK(f.shape.size() == 2, fmt::format("fragment {} is not 2-D", f.name));
        total +=
            compute_.step_seconds(plan_.options.optimizer, optim::Shape{f.shape[0], f.shape[1]});
      }
      cache_[m] = total;
    }
    return *cache_[m];
  }

 private:
  const plan::StepPlan& plan_;
  ComputeModel& compute_;
  std::vector<std::optional<double>> cache_;
};

// Index of the first op matching `pred`, or -1.
template <typename Pred>
int find_op(const std::vector<CommOp>& ops, Pred pred) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (pred(ops[i].collective)) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int> matrix_grad_sync_ops(const plan::StepPlan& plan, const std::vector<CommOp>& ops) {
  std::vector<int> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const PlannedCollective& c = ops[i].collective;
    if (c.phase == Phase::kGradSync && is_matrix_buffer(plan, c.buffer)) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

// The collective that delivers matrix m's gradient to this rank's compute, else the matrix
// buffers' grad sync.
std::vector<int> gradient_source(const plan::StepPlan& plan, const std::vector<CommOp>& ops,
                                 std::size_t m, int micro_group) {
  int op = find_op(ops, [&](const PlannedCollective& c) {
    return c.phase == Phase::kTpGather && c.matrix == static_cast<int>(m);
  });
  if (op < 0 && micro_group >= 0) {
    op = find_op(ops, [&](const PlannedCollective& c) {
      return c.phase == Phase::kTpGather && c.matrix < 0 && c.micro_group == micro_group;
    });
  }
  if (op >= 0) return {op};
  return matrix_grad_sync_ops(plan, ops);
}

RankWork build_rank(const plan::StepPlan& plan, int dp_rank, int tp_rank,
                    const plan::RankLoad& load, ComputeModel& compute, MatrixSeconds& seconds) {
  RankWork w;
  w.dp_rank = dp_rank;
  w.tp_rank = tp_rank;
  for (PlannedCollective& c : plan::rank_collectives(plan, dp_rank, tp_rank)) {
    w.ops.push_back(CommOp{std::move(c), -1, {}, kUnset, kUnset});
  }

  // Compute tasks in stream order; remember which tasks touch which matrix / micro-group.
  std::vector<std::vector<int>> matrix_tasks(plan.matrices.size());
  std::vector<int> adamw_tasks;
  if (load.adamw_elements > 0) {
    optim::OptimizerSpec adamw;
    adamw.kind = optim::OptimizerKind::kAdamW;
    adamw.adamw = plan.options.optimizer.adamw;
    Task t;
    t.adamw = true;
    t.seconds = compute.step_seconds(adamw, optim::Shape{1, load.adamw_elements});
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      const PlannedCollective& c = w.ops[i].collective;
      if (c.phase == Phase::kGradSync && !is_matrix_buffer(plan, c.buffer)) {
        t.deps.push_back(static_cast<int>(i));
      }
    }
    adamw_tasks.push_back(static_cast<int>(w.tasks.size()));
    w.tasks.push_back(std::move(t));
  }
  std::vector<std::vector<int>> group_tasks;
  if (static_cast<std::size_t>(dp_rank) < plan.micro_groups.size()) {
    const auto& groups = plan.micro_groups[static_cast<std::size_t>(dp_rank)];
    group_tasks.resize(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (static_cast<std::size_t>(tp_rank) >= groups[g].slots.size()) continue;
      for (const std::size_t m : groups[g].slots[static_cast<std::size_t>(tp_rank)]) {
        Task t;
        t.seconds = seconds(m);
        t.deps = gradient_source(plan, w.ops, m, static_cast<int>(g));
        matrix_tasks[m].push_back(static_cast<int>(w.tasks.size()));
        group_tasks[g].push_back(static_cast<int>(w.tasks.size()));
        w.tasks.push_back(std::move(t));
      }
    }
  }
  if (static_cast<std::size_t>(dp_rank) < plan.replicated_matrices.size()) {
    for (const std::size_t m : plan.replicated_matrices[static_cast<std::size_t>(dp_rank)]) {
      Task t;
      t.seconds = seconds(m);
      t.deps = gradient_source(plan, w.ops, m, -1);
      matrix_tasks[m].push_back(static_cast<int>(w.tasks.size()));
      w.tasks.push_back(std::move(t));
    }
  }

  // Serial TP execution (Megatron-Canzona's executor): a micro-group's gather is issued only
  // once the element-wise update and every earlier group's steps on this rank are done.
  if (plan.options.tp_execution == plan::TpExecution::kSerial) {
    std::vector<int> before = adamw_tasks;
    for (std::size_t g = 0; g < group_tasks.size(); ++g) {
      for (CommOp& op : w.ops) {
        if (op.collective.phase == Phase::kTpGather &&
            op.collective.micro_group == static_cast<int>(g)) {
          op.deps = before;
        }
      }
      before.insert(before.end(), group_tasks[g].begin(), group_tasks[g].end());
    }
  }

  // Collectives that wait for kernels: scatters for their host's steps, param sync for every
  // step on the rank that touches its buffer.
  for (CommOp& op : w.ops) {
    const PlannedCollective& c = op.collective;
    if (c.phase == Phase::kTpScatter) {
      if (c.matrix >= 0 && static_cast<std::size_t>(c.matrix) < matrix_tasks.size()) {
        op.deps = matrix_tasks[static_cast<std::size_t>(c.matrix)];
      } else if (c.micro_group >= 0 &&
                 static_cast<std::size_t>(c.micro_group) < group_tasks.size()) {
        op.deps = group_tasks[static_cast<std::size_t>(c.micro_group)];
      }
    } else if (c.phase == Phase::kParamSync) {
      if (c.buffer >= plan.buffers.size()) {
        op.deps.resize(w.tasks.size());
        std::iota(op.deps.begin(), op.deps.end(), 0);
      } else if (is_matrix_buffer(plan, c.buffer)) {
        for (std::size_t m = 0; m < plan.matrices.size(); ++m) {
          if (plan.matrices[m].buffer != c.buffer) continue;
          op.deps.insert(op.deps.end(), matrix_tasks[m].begin(), matrix_tasks[m].end());
        }
      } else {
        op.deps = adamw_tasks;
      }
    }
  }
  return w;
}

// Seconds of an uneven reduce-scatter / all-gather, or nullopt when its parts are even (then it
// is the plain ring collective). A member's own part is what the direct exchange moves n−1
// times: received bytes for reduce-scatter, sent bytes for all-gather.
std::optional<double> uneven_seconds(const Topology& topology, const PlannedCollective& first,
                                     const std::vector<const PlannedCollective*>& members,
                                     const GroupPlacement& placement, UnevenCollectives mode) {
  const bool reduce = first.op == "reduce_scatter";
  if ((!reduce && first.op != "all_gather") || placement.size < 2) return std::nullopt;
  double total = 0, largest = 0, smallest = std::numeric_limits<double>::max();
  for (const PlannedCollective* c : members) {
    const double part = static_cast<double>(reduce ? c->bytes_received : c->bytes_sent) /
                        static_cast<double>(placement.size - 1);
    total += part;
    largest = std::max(largest, part);
    smallest = std::min(smallest, part);
  }
  if (largest == smallest) return std::nullopt;
  if (mode == UnevenCollectives::kPadded) {
    const CollectiveClass kind =
        reduce ? CollectiveClass::kReduceScatter : CollectiveClass::kAllGather;
    return estimate_collective(topology, kind, (placement.size - 1) * largest, placement).seconds;
  }
  return estimate_collective(topology, CollectiveClass::kBroadcast, total, placement).seconds;
}

// Bytes through the busiest member (see projector.hpp).
double bus_bytes(const std::string& op, const std::vector<const PlannedCollective*>& members) {
  double sent = 0, received = 0;
  for (const PlannedCollective* c : members) {
    sent = std::max(sent, static_cast<double>(c->bytes_sent));
    received = std::max(received, static_cast<double>(c->bytes_received));
  }
  if (op == "broadcast") return received;
  if (op == "reduce") return sent;
  return std::max(sent, received);
}

std::string describe(const PlannedCollective& c) {
  return fmt::format("{} on {} (size {}, count {}, phase {})", c.op,
                     c.group == plan::Group::kDp ? "dp" : "tp", c.group_size, c.count,
                     plan::to_string(c.phase));
}

StepModel build_model(const plan::StepPlan& plan, const Topology& topology, ComputeModel& compute,
                      const ProjectionOptions& options) {
  const int dp = plan.dp();
  const int tp = plan.tp();
  const plan::PlanMetrics metrics = plan::plan_metrics(plan);
  CANZONA_CHECK(metrics.ranks.size() == static_cast<std::size_t>(dp * tp),
                "plan_metrics must report one load per global rank");
  MatrixSeconds seconds(plan, compute);
  StepModel model;
  model.ranks.reserve(static_cast<std::size_t>(dp * tp));
  for (int d = 0; d < dp; ++d) {
    for (int t = 0; t < tp; ++t) {
      model.ranks.push_back(build_rank(
          plan, d, t, metrics.ranks[static_cast<std::size_t>(d * tp + t)], compute, seconds));
    }
  }

  // Match collectives: the k-th collective a rank issues on its DP (TP) group is the k-th of
  // every other member, as NCCL and MPI require.
  std::vector<std::vector<int>> dp_group(static_cast<std::size_t>(tp));  // [tp_rank][seq]
  std::vector<std::vector<int>> tp_group(static_cast<std::size_t>(dp));  // [dp_rank][seq]
  for (int r = 0; r < dp * tp; ++r) {
    RankWork& w = model.ranks[static_cast<std::size_t>(r)];
    std::size_t dp_seq = 0, tp_seq = 0;
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      const bool on_dp = w.ops[i].collective.group == plan::Group::kDp;
      auto& sequence = on_dp ? dp_group[static_cast<std::size_t>(w.tp_rank)]
                             : tp_group[static_cast<std::size_t>(w.dp_rank)];
      std::size_t& seq = on_dp ? dp_seq : tp_seq;
      if (seq == sequence.size()) {
        sequence.push_back(static_cast<int>(model.instances.size()));
        model.instances.emplace_back();
      }
      const int id = sequence[seq++];
      model.instances[static_cast<std::size_t>(id)].members.emplace_back(r, static_cast<int>(i));
      w.ops[i].instance = id;
    }
  }

  // Cost every instance once.
  for (Instance& inst : model.instances) {
    const auto& [r0, i0] = inst.members.front();
    const PlannedCollective& first =
        model.ranks[static_cast<std::size_t>(r0)].ops[static_cast<std::size_t>(i0)].collective;
    const int expected = first.group == plan::Group::kDp ? dp : tp;
    std::vector<const PlannedCollective*> members;
    std::vector<int> global;
    for (const auto& [r, i] : inst.members) {
      const PlannedCollective& c =
          model.ranks[static_cast<std::size_t>(r)].ops[static_cast<std::size_t>(i)].collective;
      // all_to_all's count is what this rank sends, so it may differ; everywhere else the
      // count is the group's.
      const bool count_differs = c.op != "all_to_all" && c.count != first.count;
      if (c.op != first.op || c.phase != first.phase || count_differs) {
        throw Error(fmt::format(
            "projection: ranks {} and {} disagree on a collective of their group: {} vs {} (the "
            "plan's collectives do not match across ranks)",
            r0, r, describe(first), describe(c)));
      }
      members.push_back(&c);
      global.push_back(r);
    }
    if (static_cast<int>(inst.members.size()) != expected) {
      throw Error(fmt::format(
          "projection: only {} of {} ranks issue the collective {} (issued first by rank {}); "
          "the plan's collective sequences differ in length across the group",
          inst.members.size(), expected, describe(first), r0));
    }
    const GroupPlacement placement = place_group(global, topology.gpus_per_node);
    if (first.op == "barrier") {
      inst.seconds = placement.size > 1 ? topology.intra_node.base_latency_us * 1e-6 : 0.0;
    } else if (const auto uneven =
                   uneven_seconds(topology, first, members, placement, options.uneven)) {
      inst.seconds = *uneven;
    } else {
      inst.seconds = estimate_collective(topology, collective_class_of(first.op),
                                         bus_bytes(first.op, members), placement)
                         .seconds;
    }
    inst.hideable = first.group == plan::Group::kDp &&
                    (first.phase == Phase::kGradSync ||
                     (first.phase == Phase::kParamSync && first.buffer < plan.buffers.size() &&
                      plan.buffers[first.buffer].param_sync == plan::ParamSync::kAllGather));
  }
  return model;
}

double max_end(const std::vector<double>& ends, const std::vector<int>& ids) {
  double t = 0;
  for (const int i : ids) t = std::max(t, ends[static_cast<std::size_t>(i)]);
  return t;
}

bool all_done(const std::vector<double>& ends, const std::vector<int>& ids) {
  return std::all_of(ids.begin(), ids.end(),
                     [&](int i) { return ends[static_cast<std::size_t>(i)] != kUnset; });
}

// Runs the two streams of every rank to completion; fills start / end of every op and task.
void simulate(StepModel& model, bool hide_overlappable) {
  const std::size_t n = model.ranks.size();
  struct Cursor {
    std::size_t next_op = 0, next_task = 0;
    double comm_free = 0, compute_free = 0;
    bool arrived = false;
    std::vector<double> op_end, task_end;
  };
  std::vector<Cursor> cur(n);
  for (std::size_t r = 0; r < n; ++r) {
    cur[r].op_end.assign(model.ranks[r].ops.size(), kUnset);
    cur[r].task_end.assign(model.ranks[r].tasks.size(), kUnset);
  }
  for (Instance& inst : model.instances) {
    inst.arrived = 0;
    inst.ready = 0;
  }
  std::deque<std::size_t> work(n);
  std::iota(work.begin(), work.end(), std::size_t{0});
  std::vector<char> queued(n, 1);

  while (!work.empty()) {
    const std::size_t r = work.front();
    work.pop_front();
    queued[r] = 0;
    RankWork& w = model.ranks[r];
    Cursor& c = cur[r];
    for (bool progressed = true; progressed;) {
      progressed = false;
      if (c.next_task < w.tasks.size()) {
        Task& t = w.tasks[c.next_task];
        if (all_done(c.op_end, t.deps)) {
          t.start = std::max(c.compute_free, max_end(c.op_end, t.deps));
          t.end = t.start + t.seconds;
          c.compute_free = t.end;
          c.task_end[c.next_task++] = t.end;
          progressed = true;
        }
      }
      if (c.next_op < w.ops.size() && !c.arrived) {
        CommOp& op = w.ops[c.next_op];
        if (all_done(c.task_end, op.deps)) {
          Instance& inst = model.instances[static_cast<std::size_t>(op.instance)];
          inst.ready = std::max(inst.ready, std::max(c.comm_free, max_end(c.task_end, op.deps)));
          c.arrived = true;
          if (++inst.arrived == static_cast<int>(inst.members.size())) {
            const double seconds = hide_overlappable && inst.hideable ? 0.0 : inst.seconds;
            for (const auto& [mr, mi] : inst.members) {
              const auto m = static_cast<std::size_t>(mr);
              CommOp& mop = model.ranks[m].ops[static_cast<std::size_t>(mi)];
              mop.start = inst.ready;
              mop.end = inst.ready + seconds;
              cur[m].comm_free = mop.end;
              cur[m].op_end[static_cast<std::size_t>(mi)] = mop.end;
              cur[m].next_op = static_cast<std::size_t>(mi) + 1;
              cur[m].arrived = false;
              if (m != r && !queued[m]) {
                queued[m] = 1;
                work.push_back(m);
              }
            }
            progressed = true;
          }
        }
      }
    }
  }

  for (std::size_t r = 0; r < n; ++r) {
    const RankWork& w = model.ranks[r];
    if (cur[r].next_op < w.ops.size() || cur[r].next_task < w.tasks.size()) {
      const std::string what = cur[r].next_op < w.ops.size()
                                   ? fmt::format("collective #{} ({})", cur[r].next_op,
                                                 describe(w.ops[cur[r].next_op].collective))
                                   : fmt::format("kernel #{}", cur[r].next_task);
      throw Error(fmt::format(
          "projection: the step deadlocks: rank {} (dp {}, tp {}) never gets past {}; the plan's "
          "collective order and dependencies are inconsistent across ranks",
          r, w.dp_rank, w.tp_rank, what));
    }
  }
}

// Σ length of the intersection of two sorted lists of disjoint intervals.
double overlap(const std::vector<std::pair<double, double>>& a,
               const std::vector<std::pair<double, double>>& b) {
  double total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

double& phase_slot(PhaseTimes& p, Phase phase) {
  switch (phase) {
    case Phase::kGradSync:
      return p.grad_sync;
    case Phase::kTpGather:
      return p.tp_gather;
    case Phase::kCompute:
      return p.compute;
    case Phase::kTpScatter:
      return p.tp_scatter;
    case Phase::kParamSync:
      break;
  }
  return p.param_sync;
}

std::vector<RankTimeline> timelines(const StepModel& model) {
  std::vector<RankTimeline> out;
  double step_end = 0;
  for (std::size_t r = 0; r < model.ranks.size(); ++r) {
    const RankWork& w = model.ranks[r];
    RankTimeline t;
    t.rank = static_cast<int>(r);
    t.dp_rank = w.dp_rank;
    t.tp_rank = w.tp_rank;
    std::vector<std::pair<double, double>> comm, kernels;
    for (const CommOp& op : w.ops) {
      const double d = op.end - op.start;
      phase_slot(t.phases, op.collective.phase) += d;
      t.comm_busy += d;
      t.end = std::max(t.end, op.end);
      if (d > 0) comm.emplace_back(op.start, op.end);
    }
    for (const Task& task : w.tasks) {
      (task.adamw ? t.phases.update : t.phases.compute) += task.seconds;
      t.compute_busy += task.seconds;
      t.end = std::max(t.end, task.end);
      t.compute_end = std::max(t.compute_end, task.end);
      if (task.seconds > 0) kernels.emplace_back(task.start, task.end);
    }
    const double hidden = overlap(comm, kernels);
    t.exposed_comm = t.comm_busy - hidden;
    step_end = std::max(step_end, t.end);
    out.push_back(t);
  }
  for (RankTimeline& t : out) {
    t.idle = step_end - (t.compute_busy + t.exposed_comm);
    // Rounding of the interval sums leaves ±1e-13 s behind on a busy rank; call that zero.
    if (t.idle < 1e-12 * step_end) t.idle = 0;
  }
  return out;
}

double phase_ms(double seconds) { return seconds * 1e3; }

// The field named phase_names()[i] (PhaseTimes or const PhaseTimes).
template <typename Phases>
auto& phase_at(Phases& p, std::size_t i) {
  switch (i) {
    case 0:
      return p.grad_sync;
    case 1:
      return p.update;
    case 2:
      return p.tp_gather;
    case 3:
      return p.compute;
    case 4:
      return p.tp_scatter;
    case 5:
      return p.param_sync;
    default:
      break;
  }
  throw Error(fmt::format("phase index {} out of range", i));
}

nlohmann::json phases_json(const PhaseTimes& p) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < phase_names().size(); ++i) {
    j[std::string(phase_names()[i])] = phase_ms(phase_value(p, i));
  }
  return j;
}

}  // namespace

std::string_view to_string(UnevenCollectives mode) {
  return mode == UnevenCollectives::kPadded ? "padded" : "grouped";
}

UnevenCollectives parse_uneven_collectives(std::string_view text) {
  if (text == "grouped") return UnevenCollectives::kGroupedRooted;
  if (text == "padded") return UnevenCollectives::kPadded;
  throw ConfigError(fmt::format(
      "unknown uneven-collective mode '{}'; choose grouped (one rooted reduce / broadcast per "
      "part, as lib/comm does) or padded (every part padded to the largest)",
      text));
}

const std::array<std::string_view, plan::kReportedPhaseCount>& phase_names() {
  return plan::reported_phase_names();
}

double phase_value(const PhaseTimes& p, std::size_t i) { return phase_at(p, i); }

Projection project(const plan::StepPlan& plan, const Topology& topology, ComputeModel& compute,
                   const ProjectionOptions& options) {
  validate(topology);
  StepModel model = build_model(plan, topology, compute, options);

  Projection p;
  p.strategy = plan.strategy;
  p.topology = topology.name;
  p.compute_kind = compute.kind();
  p.compute_source = compute.description();
  p.uneven = options.uneven;
  p.dp = plan.dp();
  p.tp = plan.tp();
  p.collectives = static_cast<int>(model.instances.size());
  for (const RankWork& w : model.ranks) p.compute_tasks += static_cast<int>(w.tasks.size());

  if (options.with_overlapped_variant) {
    simulate(model, true);
    for (const RankTimeline& t : timelines(model)) {
      p.optimizer_seconds = std::max(p.optimizer_seconds, t.end);
    }
  }
  simulate(model, false);
  p.ranks = timelines(model);

  double busy_sum = 0, busy_max = 0;
  for (const RankTimeline& t : p.ranks) {
    p.step_seconds = std::max(p.step_seconds, t.end);
    busy_sum += t.compute_busy;
    busy_max = std::max(busy_max, t.compute_busy);
    const RankTimeline& s = p.ranks[static_cast<std::size_t>(p.straggler_rank)];
    if (t.compute_end > s.compute_end || (s.compute_end == 0 && t.end > s.end)) {
      p.straggler_rank = t.rank;
    }
    p.max_exposed_comm = std::max(p.max_exposed_comm, t.exposed_comm);
    for (std::size_t i = 0; i < phase_names().size(); ++i) {
      double& slot = phase_at(p.max_phases, i);
      slot = std::max(slot, phase_value(t.phases, i));
    }
  }
  if (!p.ranks.empty()) {
    p.mean_compute_busy = busy_sum / static_cast<double>(p.ranks.size());
    p.compute_imbalance = p.mean_compute_busy > 0 ? busy_max / p.mean_compute_busy : 1.0;
    p.straggler = p.ranks[static_cast<std::size_t>(p.straggler_rank)];
  }
  return p;
}

nlohmann::json projection_json(const Projection& p, bool per_rank) {
  nlohmann::json phases = phases_json(p.straggler.phases);
  phases["exposed_comm"] = phase_ms(p.straggler.exposed_comm);
  phases[std::string(plan::kIdleName)] = phase_ms(p.straggler.idle);
  nlohmann::json j = {{"strategy", p.strategy},
                      {"projection", true},
                      {"topology", p.topology},
                      {"compute", p.compute_kind},
                      {"compute_source", p.compute_source},
                      {"uneven_collectives", to_string(p.uneven)},
                      {"dp", p.dp},
                      {"tp", p.tp},
                      {"step_ms", phase_ms(p.step_seconds)},
                      {"optimizer_ms", phase_ms(p.optimizer_seconds)},
                      {"phases", phases},
                      {"max_phases", phases_json(p.max_phases)},
                      {"straggler",
                       {{"rank", p.straggler.rank},
                        {"dp_rank", p.straggler.dp_rank},
                        {"tp_rank", p.straggler.tp_rank},
                        {"compute_end_ms", phase_ms(p.straggler.compute_end)}}},
                      {"exposed_comm_ms", phase_ms(p.straggler.exposed_comm)},
                      {"max_exposed_comm_ms", phase_ms(p.max_exposed_comm)},
                      {"compute_imbalance", p.compute_imbalance},
                      {"mean_compute_ms", phase_ms(p.mean_compute_busy)},
                      {"collectives", p.collectives},
                      {"compute_tasks", p.compute_tasks}};
  if (per_rank) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const RankTimeline& t : p.ranks) {
      nlohmann::json r = {{"rank", t.rank},
                          {"dp_rank", t.dp_rank},
                          {"tp_rank", t.tp_rank},
                          {"end_ms", phase_ms(t.end)},
                          {"compute_end_ms", phase_ms(t.compute_end)},
                          {"phases", phases_json(t.phases)},
                          {"exposed_comm_ms", phase_ms(t.exposed_comm)},
                          {"idle_ms", phase_ms(t.idle)}};
      ranks.push_back(std::move(r));
    }
    j["ranks"] = std::move(ranks);
  }
  return j;
}

}  // namespace canzona::sim
