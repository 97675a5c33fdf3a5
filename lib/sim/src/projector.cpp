// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The per-rank two-stream timeline of a StepPlan (see projector.hpp for the semantics).
#include "canzona/sim/projector.hpp"

#include "canzona/sim/collective_model.hpp"

#include <canzona/core/error.hpp>
#include <canzona/plan/rank_work.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>

namespace canzona::sim {
namespace {

using plan::Phase;
using plan::PlannedCollective;

constexpr double kUnset = -1.0;
constexpr int kNone = -1;

// Dependencies are kept as the LAST op (task) of the set a task (op) waits for: each stream runs
// its entries in order and their end times never decrease, so "all of the set done" is "the last
// one done" and the latest end of the set is the last one's end, exactly.
//
// A rank's comm stream is the DP gradient sync, its TP collectives, then the DP parameter sync.
// Every member of a DP collective starts and ends it together, so the DP part is kept once per
// DP group (StepModel::dp_runs) and only the TP collectives per rank: with hundreds of buckets on
// hundreds of DP ranks, per-rank copies of the DP slots were most of a projection's work.
// One TP collective on one rank's comm stream.
struct CommOp {
  const PlannedCollective* collective = nullptr;  // RankWork::tp_ops
  int instance = -1;
  int dep = kNone;         // last compute task of the same rank it waits for
  double posted = kUnset;  // one thread: when the rank's thread posted it
  double start = kUnset;
  double end = kUnset;
};

// What a kernel waits for: a TP collective of its rank, or a gradient-sync slot of its DP group
// (StepModel::dp_slots index), or nothing.
struct TaskDep {
  int tp_op = kNone;
  int grad_sync = kNone;
};

// A matrix step, the AdamW update of the rank's slice, or one of the executor's element-wise
// passes outside the optimizers (ComputeModel::memory_pass_seconds).
enum class TaskKind { kMatrix, kAdamW, kMemoryPass };

struct Task {
  TaskKind kind = TaskKind::kMatrix;
  double seconds = 0;  // set per compute model (cost_tasks)
  TaskDep dep;
  double start = kUnset;
  double end = kUnset;
  std::size_t matrix = 0;           // StepPlan::matrices index, when a matrix step
  std::int64_t adamw_elements = 0;  // the AdamW slice, when AdamW
  double bytes = 0;                 // read + written, when a memory pass
  int averages = kNone;             // the gradient-sync slot a memory pass averages
};

Task matrix_task(std::size_t m, TaskDep dep) {
  Task t;
  t.matrix = m;
  t.dep = dep;
  return t;
}

Task adamw_task(std::int64_t elements, TaskDep dep) {
  Task t;
  t.kind = TaskKind::kAdamW;
  t.adamw_elements = elements;
  t.dep = dep;
  return t;
}

Task memory_pass_task(double bytes, TaskDep dep) {
  Task t;
  t.kind = TaskKind::kMemoryPass;
  t.bytes = bytes;
  t.dep = dep;
  return t;
}

// One TP collective of one TP group.
struct Instance {
  std::vector<std::pair<int, int>> members;  // (simulated rank, op index on that rank)
  double seconds = 0;
  int arrived = 0;
  double ready = 0;
};

// One DP collective slot as the members of one DP group run it, all alike.
struct DpRun {
  double seconds = 0;
  bool hideable = false;  // overlappable DP sync (see ProjectionOptions)
  double start = kUnset;
  double end = kUnset;
};

struct RankWork {
  int dp_rank = 0;
  int tp_rank = 0;
  std::vector<PlannedCollective> tp_ops;  // what `ops` point to
  std::vector<CommOp> ops;                // the TP collectives, in issue order
  std::vector<Task> tasks;
  std::vector<int> param_sync_deps;  // per param_sync_key: the last task a parameter sync waits for
  // Layer-wise: the other ranks' owned entries copied out of the staging once the parameter
  // sync has delivered them, the step's last work.
  double unpack_bytes = 0;
  double unpack_seconds = 0;
  double unpack_end = 0;
};

// Everything about the step that does not depend on time. Only one DP rank of each class of
// DP ranks with identical work is simulated (dp_rank_classes): ranks[c · tp + t] is TP rank t
// of class c's first DP rank.
struct StepModel {
  std::vector<plan::DpCollectiveSlot> dp_slots;    // the DP collectives of every rank
  std::vector<std::size_t> grad_sync, param_sync;  // dp_slots indices, in issue order
  std::vector<int> param_sync_key;                 // per dp_slots index (see param_sync_key())
  std::vector<std::vector<DpRun>> dp_runs;         // [TP rank][dp_slots index]
  std::vector<RankWork> ranks;
  std::vector<Instance> instances;  // TP collectives
  std::vector<int> dp_class;        // per DP rank: its class
  int tp = 1;
  bool one_thread = false;  // !ProjectionOptions::comm_beside_compute
  int collectives = 0;      // instances of the whole step, every DP rank counted
  int compute_tasks = 0;    // kernels of the whole step, every rank counted
};

bool is_matrix_buffer(const plan::StepPlan& plan, std::size_t buffer) {
  return buffer < plan.buffers.size() && plan.buffers[buffer].matrix;
}

// Compute seconds, one ComputeModel evaluation per distinct (optimizer, shape): MoE models hold
// thousands of identically shaped experts, and a measured model formats a key per call.
class ShapeSeconds {
 public:
  explicit ShapeSeconds(ComputeModel& compute) : compute_(compute) {}

  double operator()(const optim::OptimizerSpec& spec, optim::Shape shape) {
    const Key key{spec.kind == optim::OptimizerKind::kAdamW, shape.rows, shape.cols};
    const auto [it, inserted] = cache_.try_emplace(key, 0.0);
    if (inserted) it->second = compute_.step_seconds(spec, shape);
    return it->second;
  }

 private:
  using Key = std::tuple<bool, std::int64_t, std::int64_t>;
  ComputeModel& compute_;
  std::map<Key, double> cache_;
};

// Mean seconds of one step of matrix m (Σ over its fragments), computed once per matrix.
class MatrixSeconds {
 public:
  MatrixSeconds(const plan::StepPlan& plan, ShapeSeconds& shapes)
      : plan_(plan), shapes_(shapes), cache_(plan.matrices.size()) {}

  double operator()(std::size_t m) {
    if (!cache_[m]) {
      double total = 0;
      for (const model::Fragment& f : plan_.matrices[m].fragments) {
        CANZONA_CHECK(f.shape.size() == 2, fmt::format("fragment {} is not 2-D", f.name));
        total += shapes_(plan_.options.optimizer, optim::Shape{f.shape[0], f.shape[1]});
      }
      cache_[m] = total;
    }
    return *cache_[m];
  }

 private:
  const plan::StepPlan& plan_;
  ShapeSeconds& shapes_;
  std::vector<std::optional<double>> cache_;
};

// Seconds of one AdamW slice of `elements`.
double adamw_seconds(const plan::StepPlan& plan, ShapeSeconds& shapes, std::int64_t elements) {
  optim::OptimizerSpec adamw;
  adamw.kind = optim::OptimizerKind::kAdamW;
  adamw.adamw = plan.options.optimizer.adamw;
  return shapes(adamw, optim::Shape{1, elements});
}

// Where on one rank's comm stream what its kernels wait for arrives: the gradients (the last
// gradient sync of the matrix buffers, of the AdamW buffers), and the shards and directions of
// each micro-group and of the TP-SC matrices (the last of their collectives: the executor waits
// for all of them before it touches any).
class CommSources {
 public:
  CommSources(const plan::StepPlan& plan, const StepModel& model, const std::vector<CommOp>& ops) {
    for (const std::size_t k : model.grad_sync) {
      const PlannedCollective& c = model.dp_slots[k].collective;
      (is_matrix_buffer(plan, c.buffer) ? matrix_grads_ : adamw_grads_) =
          TaskDep{kNone, static_cast<int>(k)};
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const PlannedCollective& c = *ops[i].collective;
      const TaskDep at{static_cast<int>(i), kNone};
      if (c.phase == Phase::kTpGather && c.micro_group >= 0) {
        group_gathers_[c.micro_group] = at;
      } else if (c.phase == Phase::kTpScatter && c.micro_group >= 0) {
        group_scatters_[c.micro_group] = at;
      } else if (c.phase == Phase::kTpGather && c.matrix >= 0) {
        replicated_gathers_ = at;
      } else if (c.phase == Phase::kGradSync) {
        (is_matrix_buffer(plan, c.buffer) ? matrix_grads_ : adamw_grads_) = at;
      }
    }
  }

  TaskDep matrix_grads() const { return matrix_grads_; }
  TaskDep adamw_grads() const { return adamw_grads_; }
  TaskDep group_gathered(std::size_t g) const { return find(group_gathers_, g); }
  TaskDep group_scattered(std::size_t g) const { return find(group_scatters_, g); }
  TaskDep replicated_gathered() const { return replicated_gathers_; }

 private:
  static TaskDep find(const std::unordered_map<int, TaskDep>& ops, std::size_t g) {
    const auto it = ops.find(static_cast<int>(g));
    return it == ops.end() ? TaskDep{} : it->second;
  }

  std::unordered_map<int, TaskDep> group_gathers_, group_scatters_;
  TaskDep replicated_gathers_;
  TaskDep matrix_grads_;
  TaskDep adamw_grads_;
};

// The last task of each kind on one rank's compute stream, for the collectives that wait for
// kernels.
struct TaskIndex {
  int prologue = kNone;  // the last of the gradient averages and the gradient import
  int adamw = kNone;
  int epilogue = kNone;  // the publish (and layer-wise's pack): every parameter sync waits for it
  std::vector<int> group_pack;                  // micro-group → the pack its gather sends
  std::vector<int> group;                       // micro-group → last task
  int replicated_pack = kNone;                  // the pack the TP-SC all-gathers send
  std::unordered_map<std::size_t, int> buffer;  // matrix buffer → last task touching it
};

void add_matrix_task(const plan::StepPlan& plan, RankWork& w, TaskIndex& index, std::size_t m,
                     TaskDep dep) {
  const int id = static_cast<int>(w.tasks.size());
  w.tasks.push_back(matrix_task(m, dep));
  index.buffer[plan.matrices[m].buffer] = id;
}

// The rank's TP collectives in issue order.
void add_ops(RankWork& w) {
  for (const PlannedCollective& c : w.tp_ops) {
    CommOp op;
    op.collective = &c;
    w.ops.push_back(op);
  }
}

double bytes_of(std::int64_t elements, comm::DataType type) {
  return static_cast<double>(elements) * static_cast<double>(comm::size_of(type));
}

// The executor's passes before the optimizers: each gradient-sync slot's kept part averaged in
// place (read + write) once it arrives, then with bf16 gradient reduction the stepped elements
// converted into the fp32 main gradients. A buffer's averages are kept as at most
// kAverageRuns tasks, each after the last slot of its run of consecutive slots: a MoE buffer has
// thousands of buckets, and a task per bucket made the timeline ten times longer to simulate
// for an overlap of averages with later syncs that a few runs already show.
constexpr std::size_t kAverageRuns = 8;

void add_prologue(const plan::StepPlan& plan, const StepModel& model, std::int64_t stepped,
                  RankWork& w, TaskIndex& index) {
  const comm::DataType grads = plan.options.precision.grad_reduce;
  const auto d = static_cast<std::size_t>(w.dp_rank);
  const std::vector<std::size_t>& slots = model.grad_sync;
  for (std::size_t first = 0; first < slots.size();) {
    const std::size_t buffer = model.dp_slots[slots[first]].collective.buffer;
    std::size_t end = first;
    while (end < slots.size() && model.dp_slots[slots[end]].collective.buffer == buffer) ++end;
    const std::size_t n = end - first;
    const std::size_t runs = std::min(n, kAverageRuns);
    for (std::size_t r = 0; r < runs; ++r) {
      std::int64_t kept = 0;
      const std::size_t last = first + (r + 1) * n / runs - 1;
      for (std::size_t i = first + r * n / runs; i <= last; ++i) {
        kept += model.dp_slots[slots[i]].local_elements[d];
      }
      if (kept == 0) continue;
      const int slot = static_cast<int>(slots[last]);
      w.tasks.push_back(memory_pass_task(2 * bytes_of(kept, grads), TaskDep{kNone, slot}));
      w.tasks.back().averages = slot;
    }
    first = end;
  }
  if (grads != comm::DataType::kFloat32) {
    const TaskDep last_sync{kNone, slots.empty() ? kNone : static_cast<int>(slots.back())};
    w.tasks.push_back(memory_pass_task(
        bytes_of(stepped, grads) + bytes_of(stepped, comm::DataType::kFloat32), last_sync));
  }
  index.prologue = static_cast<int>(w.tasks.size()) - 1;
}

// The executor's passes after the optimizers: with bf16 parameters the fp32 main parameters
// cast into the model's, then the layer-wise pack of the rank's owned entries into the staging
// (the parameter sync waits for both); and the unpack of the others' entries after it.
void add_epilogue(const plan::StepPlan& plan, const StepModel& model, std::int64_t stepped,
                  RankWork& w, TaskIndex& index) {
  const comm::DataType params = plan.options.precision.params;
  const auto d = static_cast<std::size_t>(w.dp_rank);
  double publish = 0;
  if (params != comm::DataType::kFloat32) {
    publish = bytes_of(stepped, comm::DataType::kFloat32) + bytes_of(stepped, params);
  }
  for (const std::size_t k : model.param_sync) {
    const plan::DpCollectiveSlot& slot = model.dp_slots[k];
    publish += 2 * bytes_of(slot.local_elements[d], params);
    w.unpack_bytes += 2 * bytes_of(slot.unpacked_elements[d], params);
  }
  if (publish > 0) {
    index.epilogue = static_cast<int>(w.tasks.size());
    w.tasks.push_back(memory_pass_task(publish, TaskDep{}));
  }
}

// The executor's copies around the matrix steps, in bytes read + written (exec's TpPipeline and
// ReplicatedMatrices). A micro-group: every TP rank packs its fp32 gradient shard of each of the
// group's matrices into the gather's send area; the host assembles the gathered shards into its
// matrices' fragments and packs their directions into the scatter's per-rank shards. TP-SC: every
// rank packs its shards, assembles every whole matrix and keeps its own shard of each direction.
// An unsharded matrix: a fragment of more than one row range is staged, its gradient and
// parameter copied in and the parameter copied back.
class MatrixCopies {
 public:
  explicit MatrixCopies(const plan::StepPlan& plan)
      : plan_(plan), direction_(bytes_of(1, plan::direction_type(plan.options))) {}

  // Every TP rank's fp32 gradient shard of each of `matrices`, copied into a send area.
  double pack(const std::vector<std::size_t>& matrices) const {
    return 2 * kFp32 * local(matrices);
  }
  // The gathered shards copied into the fragments of whole matrices (fp32).
  double assemble(const std::vector<std::size_t>& matrices) const {
    return 2 * kFp32 * full(matrices);
  }
  // Direction elements copied between a fragment and a shard (the direction type).
  double directions(double elements) const { return 2 * direction_ * elements; }
  // Gradient and parameter in, 2 · 8 bytes per element; the parameter back, 8.
  double staged_in(const std::vector<std::size_t>& unsharded) const {
    return 4 * kFp32 * staged(unsharded);
  }
  double staged_out(const std::vector<std::size_t>& unsharded) const {
    return 2 * kFp32 * staged(unsharded);
  }

  double local(const std::vector<std::size_t>& matrices) const {
    return elements(matrices, &plan::MatrixPlan::local);
  }
  double full(const std::vector<std::size_t>& matrices) const {
    return elements(matrices, &plan::MatrixPlan::full);
  }

 private:
  static constexpr double kFp32 = sizeof(float);

  // Σ elements over `matrices` of the shape `which` names (a TP rank's shard or the whole).
  double elements(const std::vector<std::size_t>& matrices,
                  optim::Shape plan::MatrixPlan::*which) const {
    double n = 0;
    for (const std::size_t m : matrices) {
      const optim::Shape& shape = plan_.matrices[m].*which;
      n += static_cast<double>(shape.rows) * static_cast<double>(shape.cols);
    }
    return n;
  }
  double staged(const std::vector<std::size_t>& matrices) const {
    double n = 0;
    for (const std::size_t m : matrices) {
      for (const model::Fragment& f : plan_.matrices[m].fragments) {
        if (!f.contiguous()) n += static_cast<double>(f.numel());
      }
    }
    return n;
  }

  const plan::StepPlan& plan_;
  double direction_;
};

// A memory pass of `bytes` waiting for `dep`, unless there is nothing to copy. Returns its task.
int add_copy(RankWork& w, double bytes, TaskDep dep) {
  if (bytes <= 0) return kNone;
  w.tasks.push_back(memory_pass_task(bytes, dep));
  return static_cast<int>(w.tasks.size()) - 1;
}

// The unsharded matrices the rank steps in place (or staged), with no communication.
void add_unsharded(const plan::StepPlan& plan, const MatrixCopies& copies,
                   const std::vector<std::size_t>& unsharded, TaskDep grads, RankWork& w,
                   TaskIndex& index) {
  add_copy(w, copies.staged_in(unsharded), grads);
  for (const std::size_t m : unsharded) add_matrix_task(plan, w, index, m, grads);
  if (const int back = add_copy(w, copies.staged_out(unsharded), TaskDep{}); back != kNone) {
    for (const std::size_t m : unsharded) index.buffer[plan.matrices[m].buffer] = back;
  }
}

// The micro-groups in the executor's order. Pipelined: the pack of group 0 before the AdamW
// update (added by the caller), then per group g the pack of g + 1, the assembly of g, its steps
// and its scatter's pack. Serial: per group its pack, assembly, steps and scatter's pack. A pack
// reuses the staging of an earlier scatter, which must have completed first.
class MicroGroupTasks {
 public:
  MicroGroupTasks(const plan::StepPlan& plan, const MatrixCopies& copies,
                  const CommSources& sources, RankWork& w, TaskIndex& index)
      : plan_(plan), copies_(copies), sources_(sources), w_(w), index_(index) {
    const auto d = static_cast<std::size_t>(w.dp_rank);
    if (d < plan.micro_groups.size()) groups_ = &plan.micro_groups[d];
    serial_ = plan.options.tp_execution == plan::TpExecution::kSerial;
    const std::size_t n = size();
    lag_ = serial_ ? 1 : std::min(plan::kPipelineStagingSets, n);
    index.group_pack.assign(n, kNone);
    index.group.assign(n, kNone);
  }

  std::size_t size() const { return groups_ == nullptr ? 0 : groups_->size(); }
  bool pipelined() const { return !serial_; }

  void add_pack(std::size_t g) {
    const TaskDep dep = g >= lag_ ? sources_.group_scattered(g - lag_) : sources_.matrix_grads();
    double bytes = 0;
    for (const auto& slot : (*groups_)[g].slots) bytes += copies_.pack(slot);
    index_.group_pack[g] = add_copy(w_, bytes, dep);
  }

  void add_all() {
    const auto t = static_cast<std::size_t>(w_.tp_rank);
    for (std::size_t g = 0; g < size(); ++g) {
      if (serial_) {
        add_pack(g);
      } else if (g + 1 < size()) {
        add_pack(g + 1);
      }
      const std::vector<std::size_t>& hosted = (*groups_)[g].slots.at(t);
      add_copy(w_, copies_.assemble(hosted), sources_.group_gathered(g));
      for (const std::size_t m : hosted) {
        add_matrix_task(plan_, w_, index_, m, sources_.group_gathered(g));
      }
      add_copy(w_, copies_.directions(copies_.full(hosted)), TaskDep{});
      if (!hosted.empty()) index_.group[g] = static_cast<int>(w_.tasks.size()) - 1;
    }
  }

 private:
  const plan::StepPlan& plan_;
  const MatrixCopies& copies_;
  const CommSources& sources_;
  RankWork& w_;
  TaskIndex& index_;
  const std::vector<plan::MicroGroupPlan>* groups_ = nullptr;
  bool serial_ = false;
  std::size_t lag_ = 1;
};

// The TP-SC matrices after the micro-groups: one pack, the all-gathers, the assembly, the steps,
// the kept direction shards.
void add_replicated_gathered(const plan::StepPlan& plan, const MatrixCopies& copies,
                             const CommSources& sources, const std::vector<std::size_t>& gathered,
                             RankWork& w, TaskIndex& index) {
  if (gathered.empty()) return;
  index.replicated_pack = add_copy(w, copies.pack(gathered), sources.matrix_grads());
  add_copy(w, copies.assemble(gathered), sources.replicated_gathered());
  for (const std::size_t m : gathered) {
    add_matrix_task(plan, w, index, m, sources.replicated_gathered());
  }
  add_copy(w, copies.directions(copies.local(gathered)), TaskDep{});
}

// Compute tasks in the executor's stream order: the prologue, the pack of the first micro-group
// (pipelined), AdamW, the unsharded matrices, the micro-groups, the TP-SC matrices, the
// epilogue. `adamw_elements` and `stepped` as DpRankWork holds them.
TaskIndex add_tasks(const plan::StepPlan& plan, const StepModel& model, RankWork& w,
                    std::int64_t adamw_elements, std::int64_t stepped) {
  const CommSources sources(plan, model, w.ops);
  const MatrixCopies copies(plan);
  TaskIndex index;
  add_prologue(plan, model, stepped, w, index);
  MicroGroupTasks groups(plan, copies, sources, w, index);
  if (groups.pipelined() && groups.size() > 0) groups.add_pack(0);
  if (adamw_elements > 0) {
    index.adamw = static_cast<int>(w.tasks.size());
    w.tasks.push_back(adamw_task(adamw_elements, sources.adamw_grads()));
  }
  std::vector<std::size_t> unsharded, gathered;
  const auto d = static_cast<std::size_t>(w.dp_rank);
  if (d < plan.replicated_matrices.size()) {
    for (const std::size_t m : plan.replicated_matrices[d]) {
      (plan.matrices[m].sharded() ? gathered : unsharded).push_back(m);
    }
  }
  add_unsharded(plan, copies, unsharded, sources.matrix_grads(), w, index);
  groups.add_all();
  add_replicated_gathered(plan, copies, sources, gathered, w, index);
  add_epilogue(plan, model, stepped, w, index);
  return index;
}

int last_of(const std::unordered_map<std::size_t, int>& tasks, std::size_t key) {
  const auto it = tasks.find(key);
  return it == tasks.end() ? kNone : it->second;
}

// What a parameter sync waits for, as an index into RankWork::param_sync_deps: the last step
// touching its matrix buffer (key: the buffer), the AdamW update (key: buffers), every kernel of
// the rank (key: buffers + 1, a collective of no buffer), or nothing (buffers + 2: not a
// parameter sync).
int param_sync_key(const plan::StepPlan& plan, const PlannedCollective& c) {
  const auto buffers = static_cast<int>(plan.buffers.size());
  if (c.phase != Phase::kParamSync) return buffers + 2;
  if (c.buffer >= plan.buffers.size()) return buffers + 1;
  return is_matrix_buffer(plan, c.buffer) ? static_cast<int>(c.buffer) : buffers;
}

std::vector<int> param_sync_deps(const plan::StepPlan& plan, const RankWork& w,
                                 const TaskIndex& index) {
  std::vector<int> deps(plan.buffers.size() + 3, kNone);
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    if (is_matrix_buffer(plan, b)) deps[b] = last_of(index.buffer, b);
  }
  deps[plan.buffers.size()] = index.adamw;
  deps[plan.buffers.size() + 1] = static_cast<int>(w.tasks.size()) - 1;
  if (index.epilogue != kNone) {
    // The executor publishes every parameter, then issues the parameter sync.
    for (std::size_t key = 0; key < plan.buffers.size() + 2; ++key) deps[key] = index.epilogue;
  }
  return deps;
}

// Collectives that wait for kernels: a gather for the pack it sends (with the serial TP
// execution it comes after every earlier group's work in stream order, as in Megatron-Canzona's
// executor), a scatter for its host's steps and the directions' pack, the parameter sync for
// every step on the rank that touches its buffer.
void add_op_deps(const plan::StepPlan& plan, RankWork& w, const TaskIndex& index) {
  const auto group = [&](int g) { return static_cast<std::size_t>(g); };
  for (CommOp& op : w.ops) {
    const PlannedCollective& c = *op.collective;
    if (c.phase == Phase::kTpGather) {
      if (c.micro_group >= 0 && group(c.micro_group) < index.group_pack.size()) {
        op.dep = index.group_pack[group(c.micro_group)];
      } else if (c.matrix >= 0) {
        op.dep = index.replicated_pack;
      }
    } else if (c.phase == Phase::kTpScatter) {
      if (c.micro_group >= 0 && group(c.micro_group) < index.group.size()) {
        op.dep = index.group[group(c.micro_group)];
      }
    } else if (c.phase == Phase::kParamSync) {
      op.dep = w.param_sync_deps[static_cast<std::size_t>(param_sync_key(plan, c))];
    }
  }
}

// One rank's streams; `adamw_elements` is its AdamW slice (0: none), `stepped` its main parameters.
RankWork build_rank(const plan::StepPlan& plan, const StepModel& model, int dp_rank, int tp_rank,
                    std::int64_t adamw_elements, std::int64_t stepped) {
  RankWork w;
  w.dp_rank = dp_rank;
  w.tp_rank = tp_rank;
  w.tp_ops = plan::tp_collectives(plan, dp_rank, tp_rank);
  add_ops(w);
  const TaskIndex index = add_tasks(plan, model, w, adamw_elements, stepped);
  w.param_sync_deps = param_sync_deps(plan, w, index);
  add_op_deps(plan, w, index);
  return w;
}

// Seconds of an uneven reduce-scatter / all-gather, or nullopt when its parts are even (then it
// is the plain ring collective). A member's own part is what the direct exchange moves n−1
// times: received bytes for reduce-scatter, sent bytes for all-gather. Every part is a whole
// number of bytes (the bytes are n−1 times an element count), so their sum is exact in any
// order.
std::optional<double> uneven_seconds(const Topology& topology, const PlannedCollective& first,
                                     std::span<const std::uint64_t> sent,
                                     std::span<const std::uint64_t> received,
                                     const GroupPlacement& placement, UnevenCollectives mode) {
  const bool reduce = first.op == "reduce_scatter";
  if ((!reduce && first.op != "all_gather") || placement.size < 2) return std::nullopt;
  double total = 0, largest = 0, smallest = std::numeric_limits<double>::max();
  for (const std::uint64_t bytes : reduce ? received : sent) {
    const double part = static_cast<double>(bytes) / static_cast<double>(placement.size - 1);
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
double bus_bytes(const std::string& op, std::span<const std::uint64_t> sent,
                 std::span<const std::uint64_t> received) {
  const auto max_of = [](std::span<const std::uint64_t> bytes) {
    return bytes.empty() ? 0.0 : static_cast<double>(*std::max_element(bytes.begin(), bytes.end()));
  };
  if (op == "broadcast") return max_of(received);
  if (op == "reduce") return max_of(sent);
  return std::max(max_of(sent), max_of(received));
}

// Seconds of one collective instance whose members (in global rank order) send and receive
// these bytes.
double instance_seconds(const Topology& topology, const PlannedCollective& first,
                        std::span<const std::uint64_t> sent,
                        std::span<const std::uint64_t> received, const GroupPlacement& placement,
                        UnevenCollectives mode) {
  if (first.op == "barrier") {
    return placement.size > 1 ? topology.intra_node.base_latency_us * 1e-6 : 0.0;
  }
  if (const auto uneven = uneven_seconds(topology, first, sent, received, placement, mode)) {
    return *uneven;
  }
  return estimate_collective(topology, collective_class_of(first.op),
                             bus_bytes(first.op, sent, received), placement)
      .seconds;
}

bool is_hideable(const plan::StepPlan& plan, const PlannedCollective& c) {
  return c.group == plan::Group::kDp &&
         (c.phase == Phase::kGradSync ||
          (c.phase == Phase::kParamSync && c.buffer < plan.buffers.size() &&
           plan.buffers[c.buffer].param_sync == plan::ParamSync::kAllGather));
}

std::string describe(const PlannedCollective& c) {
  return fmt::format("{} on {} (size {}, count {}, phase {})", c.op,
                     c.group == plan::Group::kDp ? "dp" : "tp", c.group_size, c.count,
                     plan::to_string(c.phase));
}

// Global ranks of the DP group of TP rank t and of the TP group of DP rank d.
std::vector<int> dp_group_ranks(int dp, int tp, int t) {
  std::vector<int> ranks;
  for (int d = 0; d < dp; ++d) ranks.push_back(d * tp + t);
  return ranks;
}
std::vector<int> tp_group_ranks(int tp, int d) {
  std::vector<int> ranks;
  for (int t = 0; t < tp; ++t) ranks.push_back(d * tp + t);
  return ranks;
}

// What a DP rank's TP group computes and moves, as far as its timeline can tell: DP ranks that
// agree on all of it have identical timelines.
struct DpRankWork {
  const std::vector<plan::MicroGroupPlan>* groups = nullptr;
  const std::vector<std::size_t>* replicated = nullptr;
  std::int64_t adamw_elements = 0;
  std::int64_t stepped_elements = 0;  // what its memory passes cast
  GroupPlacement tp_group;
  const std::vector<plan::DpCollectiveSlot>* dp_slots = nullptr;  // its averages, pack, unpack
  std::size_t dp_rank = 0;

  bool same_memory_passes(const DpRankWork& o) const {
    for (const plan::DpCollectiveSlot& slot : *dp_slots) {
      if (slot.local_elements[dp_rank] != slot.local_elements[o.dp_rank] ||
          slot.unpacked_elements[dp_rank] != slot.unpacked_elements[o.dp_rank]) {
        return false;
      }
    }
    return true;
  }

  bool operator==(const DpRankWork& o) const {
    if (adamw_elements != o.adamw_elements || stepped_elements != o.stepped_elements ||
        replicated->size() != o.replicated->size() || groups->size() != o.groups->size() ||
        tp_group.size != o.tp_group.size || tp_group.nodes != o.tp_group.nodes ||
        tp_group.min_ranks_per_node != o.tp_group.min_ranks_per_node ||
        tp_group.max_ranks_per_node != o.tp_group.max_ranks_per_node) {
      return false;
    }
    for (std::size_t g = 0; g < groups->size(); ++g) {
      if ((*groups)[g].slots != (*o.groups)[g].slots) return false;
    }
    return *replicated == *o.replicated && same_memory_passes(o);
  }
};

DpRankWork dp_rank_work(const plan::StepPlan& plan, const Topology& topology,
                        const std::vector<plan::DpCollectiveSlot>& dp_slots, int d) {
  static const std::vector<plan::MicroGroupPlan> kNoGroups;
  static const std::vector<std::size_t> kNoMatrices;
  const auto i = static_cast<std::size_t>(d);
  DpRankWork w;
  w.groups = i < plan.micro_groups.size() ? &plan.micro_groups[i] : &kNoGroups;
  w.replicated = i < plan.replicated_matrices.size() ? &plan.replicated_matrices[i] : &kNoMatrices;
  w.adamw_elements = plan::adamw_elements(plan, d);
  w.stepped_elements = plan::stepped_elements(plan, d);
  w.dp_slots = &dp_slots;
  w.dp_rank = i;
  w.tp_group = place_group(tp_group_ranks(plan.tp(), d), topology.gpus_per_node);
  return w;
}

// Classes of DP ranks with identical work; the first DP rank of each class stands for it.
// Every DP collective has every DP rank as a member, so the ranks of one class reach each one
// at the same time and leave it together: by induction over the step, their timelines are
// identical, and one simulation serves them all (DP-SC: every DP rank alike). Returns the class
// of every DP rank and fills `representatives`.
std::vector<int> dp_rank_classes(const plan::StepPlan& plan, const Topology& topology,
                                 const std::vector<plan::DpCollectiveSlot>& dp_slots, bool group,
                                 std::vector<DpRankWork>& representatives) {
  std::vector<int> classes;
  // Candidates by a cheap key, confirmed by comparing the work itself.
  std::map<std::tuple<std::int64_t, std::size_t, std::size_t>, std::vector<int>> by_key;
  for (int d = 0; d < plan.dp(); ++d) {
    DpRankWork w = dp_rank_work(plan, topology, dp_slots, d);
    int found = kNone;
    std::vector<int>& candidates =
        by_key[{w.adamw_elements, w.replicated->size(), w.groups->size()}];
    if (group) {
      for (const int c : candidates) {
        if (representatives[static_cast<std::size_t>(c)] == w) found = c;
        if (found != kNone) break;
      }
    }
    if (found == kNone) {
      found = static_cast<int>(representatives.size());
      candidates.push_back(found);
      representatives.push_back(w);
    }
    classes.push_back(found);
  }
  return classes;
}

// Index in StepModel::ranks of TP rank t of a class.
int rank_of(int dp_class, int tp_rank, int tp) { return dp_class * tp + tp_rank; }

// One run per DP collective and DP group, costed with every DP rank's bytes; and which slots
// are the gradient sync (before the TP collectives) and which the parameter sync (after).
void add_dp_runs(const plan::StepPlan& plan, const Topology& topology,
                 const ProjectionOptions& options, StepModel& model) {
  for (std::size_t k = 0; k < model.dp_slots.size(); ++k) {
    const PlannedCollective& c = model.dp_slots[k].collective;
    (c.phase == Phase::kGradSync ? model.grad_sync : model.param_sync).push_back(k);
    model.param_sync_key.push_back(param_sync_key(plan, c));
  }
  const int tp = plan.tp();
  model.dp_runs.resize(static_cast<std::size_t>(tp));
  for (int t = 0; t < tp; ++t) {
    const GroupPlacement placement =
        place_group(dp_group_ranks(plan.dp(), tp, t), topology.gpus_per_node);
    for (const plan::DpCollectiveSlot& slot : model.dp_slots) {
      DpRun run;
      run.seconds = instance_seconds(topology, slot.collective, slot.bytes_sent,
                                     slot.bytes_received, placement, options.uneven);
      run.hideable = is_hideable(plan, slot.collective);
      model.dp_runs[static_cast<std::size_t>(t)].push_back(run);
    }
  }
}

// Matches and costs the TP collectives of one class's TP group: the k-th collective a rank
// issues on its TP group is the k-th of every other member, as NCCL and MPI require. Returns the
// number of instances.
int add_tp_instances(const Topology& topology, const ProjectionOptions& options, StepModel& model,
                     int dp_class, int tp) {
  std::vector<int> sequence;  // [seq] → instance
  const std::size_t first_instance = model.instances.size();
  std::vector<int> global;  // members' global ranks
  for (int t = 0; t < tp; ++t) {
    const int r = rank_of(dp_class, t, tp);
    RankWork& w = model.ranks[static_cast<std::size_t>(r)];
    global.push_back(w.dp_rank * tp + t);
    std::size_t seq = 0;
    for (std::size_t i = 0; i < w.ops.size(); ++i) {
      if (w.ops[i].collective->group != plan::Group::kTp) continue;
      if (seq == sequence.size()) {
        sequence.push_back(static_cast<int>(model.instances.size()));
        model.instances.emplace_back();
      }
      const int id = sequence[seq++];
      model.instances[static_cast<std::size_t>(id)].members.emplace_back(r, static_cast<int>(i));
      w.ops[i].instance = id;
    }
  }
  const GroupPlacement placement = place_group(global, topology.gpus_per_node);
  for (std::size_t id = first_instance; id < model.instances.size(); ++id) {
    Instance& inst = model.instances[id];
    const auto& [r0, i0] = inst.members.front();
    const auto op_of = [&](int r, int i) -> const PlannedCollective& {
      return *model.ranks[static_cast<std::size_t>(r)].ops[static_cast<std::size_t>(i)].collective;
    };
    const PlannedCollective& first = op_of(r0, i0);
    std::vector<std::uint64_t> sent, received;
    for (const auto& [r, i] : inst.members) {
      const PlannedCollective& c = op_of(r, i);
      // all_to_all's count is what this rank sends, so it may differ; everywhere else the
      // count is the group's.
      const bool count_differs = c.op != "all_to_all" && c.count != first.count;
      if (c.op != first.op || c.phase != first.phase || count_differs) {
        throw Error(fmt::format(
            "projection: ranks {} and {} disagree on a collective of their group: {} vs {} (the "
            "plan's collectives do not match across ranks)",
            global[static_cast<std::size_t>(r0 % tp)], global[static_cast<std::size_t>(r % tp)],
            describe(first), describe(c)));
      }
      sent.push_back(c.bytes_sent);
      received.push_back(c.bytes_received);
    }
    if (static_cast<int>(inst.members.size()) != tp) {
      throw Error(fmt::format(
          "projection: only {} of {} ranks issue the collective {} (issued first by rank {}); "
          "the plan's collective sequences differ in length across the group",
          inst.members.size(), tp, describe(first), global[static_cast<std::size_t>(r0 % tp)]));
    }
    inst.seconds = instance_seconds(topology, first, sent, received, placement, options.uneven);
  }
  return static_cast<int>(model.instances.size() - first_instance);
}

StepModel build_model(const plan::StepPlan& plan, const Topology& topology,
                      const ProjectionOptions& options) {
  const int tp = plan.tp();
  StepModel model;
  model.tp = tp;
  model.one_thread = !options.comm_beside_compute;
  model.dp_slots = plan::dp_collective_slots(plan);
  add_dp_runs(plan, topology, options, model);
  std::vector<DpRankWork> classes;
  model.dp_class =
      dp_rank_classes(plan, topology, model.dp_slots, options.group_identical_ranks, classes);
  std::vector<int> class_size(classes.size(), 0);
  for (const int c : model.dp_class) ++class_size[static_cast<std::size_t>(c)];

  model.ranks.reserve(classes.size() * static_cast<std::size_t>(tp));
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const int d = static_cast<int>(
        std::find(model.dp_class.begin(), model.dp_class.end(), static_cast<int>(c)) -
        model.dp_class.begin());
    for (int t = 0; t < tp; ++t) {
      model.ranks.push_back(
          build_rank(plan, model, d, t, classes[c].adamw_elements, classes[c].stepped_elements));
      model.compute_tasks += class_size[c] * static_cast<int>(model.ranks.back().tasks.size());
    }
  }
  model.collectives = tp * static_cast<int>(model.dp_slots.size());
  for (std::size_t c = 0; c < classes.size(); ++c) {
    model.collectives +=
        class_size[c] * add_tp_instances(topology, options, model, static_cast<int>(c), tp);
  }
  return model;
}

// Every kernel's seconds from `compute`: all a compute model changes in a projection.
void cost_tasks(StepModel& model, const plan::StepPlan& plan, ComputeModel& compute) {
  ShapeSeconds shapes(compute);
  MatrixSeconds seconds(plan, shapes);
  for (RankWork& w : model.ranks) {
    for (Task& t : w.tasks) {
      switch (t.kind) {
        case TaskKind::kMatrix:
          t.seconds = seconds(t.matrix);
          break;
        case TaskKind::kAdamW:
          t.seconds = adamw_seconds(plan, shapes, t.adamw_elements);
          break;
        case TaskKind::kMemoryPass:
          t.seconds = compute.memory_pass_seconds(t.bytes);
          break;
      }
    }
    w.unpack_seconds = w.unpack_bytes > 0 ? compute.memory_pass_seconds(w.unpack_bytes) : 0.0;
  }
}

// The end of the rank's task `dep`, 0 for none; kUnset while it has not run.
double task_end(const RankWork& w, int dep) {
  return dep == kNone ? 0.0 : w.tasks[static_cast<std::size_t>(dep)].end;
}

// Where one simulated rank's streams are. With one thread (StepModel::one_thread) a collective
// also waits for the rank's kernels, and they for it.
struct Cursor {
  std::size_t next_op = 0, next_task = 0;
  std::size_t next_post = 0;  // one thread: the first collective not posted yet
  double comm_free = 0, compute_free = 0;
  bool arrived = false;

  double comm_start(bool one_thread) const {
    return one_thread ? std::max(comm_free, compute_free) : comm_free;
  }
};

double run_seconds(const DpRun& run, bool hide_overlappable) {
  return hide_overlappable && run.hideable ? 0.0 : run.seconds;
}

// A gradient average belongs to its gradient sync: hidden with it (Megatron scales a bucket's
// gradients as it sends them, or lets NCCL average).
double task_seconds(const StepModel& model, const RankWork& w, const Task& t,
                    bool hide_overlappable) {
  if (hide_overlappable && t.averages != kNone &&
      model.dp_runs[static_cast<std::size_t>(w.tp_rank)][static_cast<std::size_t>(t.averages)]
          .hideable) {
    return 0.0;
  }
  return t.seconds;
}

// When the kernel can start as far as its dependency goes; kUnset while that has not run.
double ready_at(const StepModel& model, const RankWork& w, const TaskDep& dep) {
  if (dep.tp_op != kNone) return w.ops[static_cast<std::size_t>(dep.tp_op)].end;
  if (dep.grad_sync != kNone) {
    return model
        .dp_runs[static_cast<std::size_t>(w.tp_rank)][static_cast<std::size_t>(dep.grad_sync)]
        .end;
  }
  return 0.0;
}

// Every rank's comm stream opens with the DP gradient sync, which waits for nothing: each of its
// collectives starts when the previous one ends, on every member of the DP group alike.
void run_grad_sync(StepModel& model, bool hide_overlappable, std::vector<Cursor>& cur) {
  for (int t = 0; t < model.tp; ++t) {
    std::vector<DpRun>& runs = model.dp_runs[static_cast<std::size_t>(t)];
    double free = 0;
    for (const std::size_t k : model.grad_sync) {
      runs[k].start = free;
      runs[k].end = free + run_seconds(runs[k], hide_overlappable);
      free = runs[k].end;
    }
    for (std::size_t r = static_cast<std::size_t>(t); r < model.ranks.size();
         r += static_cast<std::size_t>(model.tp)) {
      cur[r].comm_free = free;
    }
  }
}

// Every rank's comm stream closes with the DP parameter sync. Nothing else waits for it (kernels
// wait for gradient syncs and TP gathers only), so once every rank has run its kernels and TP
// collectives, each of its collectives starts when the last member is free (the first one: the
// latest end of the members' TP collectives; the others: the previous one's end) and the
// kernels it waits for have ended on every member.
void run_param_sync(StepModel& model, bool hide_overlappable, const std::vector<Cursor>& cur) {
  const std::size_t keys = model.ranks.empty() ? 0 : model.ranks.front().param_sync_deps.size();
  for (int t = 0; t < model.tp; ++t) {
    double free = 0;
    std::vector<double> kernels_done(keys, 0.0);  // per param_sync_key: latest over the group
    for (std::size_t r = static_cast<std::size_t>(t); r < model.ranks.size();
         r += static_cast<std::size_t>(model.tp)) {
      const RankWork& w = model.ranks[r];
      free = std::max(free, cur[r].comm_start(model.one_thread));
      for (std::size_t key = 0; key < keys; ++key) {
        kernels_done[key] = std::max(kernels_done[key], task_end(w, w.param_sync_deps[key]));
      }
    }
    std::vector<DpRun>& runs = model.dp_runs[static_cast<std::size_t>(t)];
    for (const std::size_t k : model.param_sync) {
      const auto key = static_cast<std::size_t>(model.param_sync_key[k]);
      runs[k].start = std::max(free, kernels_done[key]);
      runs[k].end = runs[k].start + run_seconds(runs[k], hide_overlappable);
      free = runs[k].end;
    }
  }
}

// Layer-wise's unpack, once the last parameter sync has delivered the other ranks' entries.
void run_unpack(StepModel& model) {
  for (RankWork& w : model.ranks) {
    if (w.unpack_seconds <= 0) continue;
    double start = w.tasks.empty() ? 0.0 : w.tasks.back().end;
    const std::vector<DpRun>& runs = model.dp_runs[static_cast<std::size_t>(w.tp_rank)];
    for (const std::size_t k : model.param_sync) start = std::max(start, runs[k].end);
    w.unpack_end = start + w.unpack_seconds;
  }
}

// Runs every kernel of the rank that can run, in stream order. Returns whether one ran.
bool run_ready_kernels(const StepModel& model, RankWork& w, Cursor& c, bool hide_overlappable) {
  bool ran = false;
  while (c.next_task < w.tasks.size()) {
    Task& t = w.tasks[c.next_task];
    const double ready = ready_at(model, w, t.dep);
    if (ready == kUnset) break;
    t.start = std::max(c.compute_free, ready);
    t.end = t.start + task_seconds(model, w, t, hide_overlappable);
    c.compute_free = t.end;
    ++c.next_task;
    ran = true;
  }
  return ran;
}

// Two streams: a collective starts once every member's comm stream has reached it (its previous
// collective done, the kernels it waits for done), on every member at once. Returns whether the
// rank's stream moved; `moved(m)` for every other member once the collective has run.
template <typename Moved>
bool arrive_beside_compute(StepModel& model, std::vector<Cursor>& cur, std::size_t r,
                           Moved&& moved) {
  RankWork& w = model.ranks[r];
  Cursor& c = cur[r];
  if (c.next_op >= w.ops.size() || c.arrived) return false;
  CommOp& op = w.ops[c.next_op];
  const double ready = task_end(w, op.dep);
  if (ready == kUnset) return false;
  Instance& inst = model.instances[static_cast<std::size_t>(op.instance)];
  inst.ready = std::max({inst.ready, c.comm_free, ready});
  c.arrived = true;
  if (++inst.arrived < static_cast<int>(inst.members.size())) return true;
  for (const auto& [mr, mi] : inst.members) {
    const auto m = static_cast<std::size_t>(mr);
    CommOp& mop = model.ranks[m].ops[static_cast<std::size_t>(mi)];
    mop.start = inst.ready;
    mop.end = inst.ready + inst.seconds;
    cur[m].comm_free = mop.end;
    cur[m].next_op = static_cast<std::size_t>(mi) + 1;
    cur[m].arrived = false;
    if (m != r) moved(m);
  }
  return true;
}

// One thread (host ranks under MPI; ProjectionOptions::comm_beside_compute). A rank posts a
// collective as its thread gets there (the pack it sends done, its earlier collectives posted)
// and computes on; it is inside MPI only while it waits, and only then does Open MPI move data.
// The TP collectives are single-round exchanges (Ialltoallv, Iallgatherv, Igatherv, Iscatterv:
// one send and one receive per peer) whose messages above the eager limit go by rendezvous
// through shared memory: the sender's post leaves a header, the receiver copies the data out
// once it is inside MPI, and the sender's request completes once it sees that. So member m's
// part of a collective moves once m waits for it, every member has posted, and every other
// member has been inside MPI since m posted; waiting for an earlier collective counts. The
// members need not wait at the same time: a rank whose peer is behind runs ahead until it needs
// data the peer has not posted (ASC's one matrix per host: the ranks' steps of consecutive
// groups overlap, where waiting together made every group cost its slower rank's step).
class OneThread {
 public:
  OneThread(StepModel& model, std::vector<Cursor>& cur)
      : model_(model), cur_(cur), in_mpi_(model.ranks.size()), waiting_since_(model.ranks.size()) {
    for (std::size_t r = 0; r < model.ranks.size(); ++r) {
      for (CommOp& op : model.ranks[r].ops) op.posted = kUnset;
      thread_start_.push_back(cur[r].compute_free);
    }
  }

  // Posts what the rank's thread has reached and, once it waits, completes its next collective
  // if it can. Returns whether the rank's state moved.
  bool advance(std::size_t r) {
    RankWork& w = model_.ranks[r];
    Cursor& c = cur_[r];
    bool moved = post_reached(w, c, thread_start_[r]);
    if (c.next_op >= w.ops.size()) return moved;
    CommOp& op = w.ops[c.next_op];
    if (op.posted == kUnset) return moved;
    if (!c.arrived) {
      c.arrived = true;
      waiting_since_[r] = c.comm_start(true);
      moved = true;
    }
    const Instance& inst = model_.instances[static_cast<std::size_t>(op.instance)];
    double start = waiting_since_[r];
    for (const auto& [mr, mi] : inst.members) {
      const auto q = static_cast<std::size_t>(mr);
      if (q == r) continue;
      const double posted = model_.ranks[q].ops[static_cast<std::size_t>(mi)].posted;
      const double entered = in_mpi_since(q, op.posted, op.instance);
      if (posted == kUnset || entered == kUnset) return moved;
      start = std::max({start, posted, entered});
    }
    op.start = start;
    op.end = start + inst.seconds;
    in_mpi_[r].emplace_back(waiting_since_[r], op.end);
    c.comm_free = c.compute_free = op.end;
    ++c.next_op;
    c.arrived = false;
    return true;
  }

 private:
  // Posts in issue order, each once the kernel it sends from has run (the thread starts once
  // the gradient sync has ended: `thread_start`).
  static bool post_reached(RankWork& w, Cursor& c, double thread_start) {
    bool posted = false;
    for (; c.next_post < w.ops.size(); ++c.next_post) {
      CommOp& op = w.ops[c.next_post];
      const double ready = task_end(w, op.dep);
      if (ready == kUnset) break;
      const double previous = c.next_post == 0 ? thread_start : w.ops[c.next_post - 1].posted;
      op.posted = std::max(previous, ready);
      posted = true;
    }
    return posted;
  }

  // The first time at or after `t` rank q is inside MPI; kUnset while that is not known yet.
  // q's waits so far are in in_mpi_; a wait still open covers every time from its start when it
  // is for `instance` itself (it cannot end before every member has posted, `t` included), and
  // times from its start only once it has ended otherwise.
  double in_mpi_since(std::size_t q, double t, int instance) const {
    const auto& waits = in_mpi_[q];
    const auto after = std::lower_bound(waits.begin(), waits.end(), t,
                                        [](const auto& wait, double x) { return wait.second < x; });
    if (after != waits.end()) return std::max(after->first, t);
    const Cursor& c = cur_[q];
    if (!c.arrived) return kUnset;
    if (waiting_since_[q] >= t) return waiting_since_[q];
    const CommOp& waited = model_.ranks[q].ops[c.next_op];
    return waited.instance == instance ? t : kUnset;
  }

  StepModel& model_;
  std::vector<Cursor>& cur_;
  std::vector<std::vector<std::pair<double, double>>> in_mpi_;  // per rank: its ended waits
  std::vector<double> waiting_since_;                           // per rank: its open wait
  std::vector<double> thread_start_;                            // per rank: its gradient sync's end
};

// Runs the streams of every rank to completion; fills start / end of every op, task and DP run.
void simulate(StepModel& model, bool hide_overlappable) {
  const std::size_t n = model.ranks.size();
  std::vector<Cursor> cur(n);
  // An entry's end stays kUnset until it has run: the dependency tests below read it.
  for (RankWork& w : model.ranks) {
    for (CommOp& op : w.ops) op.start = op.end = kUnset;
    for (Task& t : w.tasks) t.start = t.end = kUnset;
  }
  for (Instance& inst : model.instances) {
    inst.arrived = 0;
    inst.ready = 0;
  }
  run_grad_sync(model, hide_overlappable, cur);
  if (model.one_thread) {
    for (Cursor& c : cur) c.compute_free = c.comm_free;
  }
  std::optional<OneThread> one_thread;
  if (model.one_thread) one_thread.emplace(model, cur);
  std::deque<std::size_t> work(n);
  std::iota(work.begin(), work.end(), std::size_t{0});
  std::vector<char> queued(n, 1);
  const auto requeue = [&](std::size_t m) {
    if (!queued[m]) {
      queued[m] = 1;
      work.push_back(m);
    }
  };
  while (!work.empty()) {
    const std::size_t r = work.front();
    work.pop_front();
    queued[r] = 0;
    RankWork& w = model.ranks[r];
    Cursor& c = cur[r];
    for (bool progressed = true; progressed;) {
      // Every kernel that can run runs before the rank waits for its next collective (the
      // executor posts the collective, computes, then waits).
      progressed = run_ready_kernels(model, w, c, hide_overlappable);
      if (one_thread) {
        if (one_thread->advance(r)) {
          progressed = true;
          // What the rank's TP group waits for may have moved (its waits, posts, completions).
          for (int t = 0; t < model.tp; ++t) {
            const auto m =
                static_cast<std::size_t>(rank_of(static_cast<int>(r) / model.tp, t, model.tp));
            if (m != r) requeue(m);
          }
        }
      } else if (arrive_beside_compute(model, cur, r, requeue)) {
        progressed = true;
      }
    }
  }

  for (std::size_t r = 0; r < n; ++r) {
    const RankWork& w = model.ranks[r];
    if (cur[r].next_op < w.ops.size() || cur[r].next_task < w.tasks.size()) {
      // Numbered on the whole comm stream, gradient sync first.
      const std::string what =
          cur[r].next_op < w.ops.size()
              ? fmt::format("collective #{} ({})", model.grad_sync.size() + cur[r].next_op,
                            describe(*w.ops[cur[r].next_op].collective))
              : fmt::format("kernel #{}", cur[r].next_task);
      throw Error(fmt::format(
          "projection: the step deadlocks: rank {} (dp {}, tp {}) never gets past {}; the plan's "
          "collective order and dependencies are inconsistent across ranks",
          w.dp_rank * model.tp + w.tp_rank, w.dp_rank, w.tp_rank, what));
    }
  }
  run_param_sync(model, hide_overlappable, cur);
  run_unpack(model);
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

// The timeline of every simulated rank; idle is left to expand().
std::vector<RankTimeline> timelines(const StepModel& model) {
  std::vector<RankTimeline> out;
  for (const RankWork& w : model.ranks) {
    RankTimeline t;
    t.dp_rank = w.dp_rank;
    t.tp_rank = w.tp_rank;
    std::vector<std::pair<double, double>> comm, kernels;
    const auto add_comm = [&](Phase phase, double start, double end) {
      const double d = end - start;
      phase_slot(t.phases, phase) += d;
      t.comm_busy += d;
      t.end = std::max(t.end, end);
      if (d > 0) comm.emplace_back(start, end);
    };
    // In issue order: gradient sync, TP collectives, parameter sync.
    const std::vector<DpRun>& runs = model.dp_runs[static_cast<std::size_t>(w.tp_rank)];
    for (const std::size_t k : model.grad_sync) {
      add_comm(model.dp_slots[k].collective.phase, runs[k].start, runs[k].end);
    }
    for (const CommOp& op : w.ops) add_comm(op.collective->phase, op.start, op.end);
    for (const std::size_t k : model.param_sync) {
      add_comm(model.dp_slots[k].collective.phase, runs[k].start, runs[k].end);
    }
    for (const Task& task : w.tasks) {
      (task.kind == TaskKind::kMatrix ? t.phases.compute : t.phases.update) += task.seconds;
      t.compute_busy += task.seconds;
      t.end = std::max(t.end, task.end);
      t.compute_end = std::max(t.compute_end, task.end);
      if (task.seconds > 0) kernels.emplace_back(task.start, task.end);
    }
    if (w.unpack_seconds > 0) {
      t.phases.update += w.unpack_seconds;
      t.compute_busy += w.unpack_seconds;
      t.end = std::max(t.end, w.unpack_end);
      t.compute_end = std::max(t.compute_end, w.unpack_end);
      kernels.emplace_back(w.unpack_end - w.unpack_seconds, w.unpack_end);
    }
    const double hidden = overlap(comm, kernels);
    t.exposed_comm = t.comm_busy - hidden;
    out.push_back(t);
  }
  return out;
}

// Every global rank's timeline from its class's simulated one, in global rank order, with idle
// against the step's end.
std::vector<RankTimeline> expand(const StepModel& model,
                                 const std::vector<RankTimeline>& simulated) {
  std::vector<RankTimeline> out;
  out.reserve(model.dp_class.size() * static_cast<std::size_t>(model.tp));
  double step_end = 0;
  for (std::size_t d = 0; d < model.dp_class.size(); ++d) {
    for (int t = 0; t < model.tp; ++t) {
      RankTimeline r = simulated[static_cast<std::size_t>(rank_of(model.dp_class[d], t, model.tp))];
      r.dp_rank = static_cast<int>(d);
      r.tp_rank = t;
      r.rank = r.dp_rank * model.tp + t;
      step_end = std::max(step_end, r.end);
      out.push_back(r);
    }
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

struct PreparedProjection::Impl {
  const plan::StepPlan& plan;
  std::string topology;
  ProjectionOptions options;
  StepModel model;
};

PreparedProjection::PreparedProjection(const plan::StepPlan& plan, const Topology& topology,
                                       const ProjectionOptions& options) {
  validate(topology);
  impl_ = std::make_unique<Impl>(
      Impl{plan, topology.name, options, build_model(plan, topology, options)});
}

PreparedProjection::~PreparedProjection() = default;

Projection project(const plan::StepPlan& plan, const Topology& topology, ComputeModel& compute,
                   const ProjectionOptions& options) {
  return PreparedProjection(plan, topology, options).project(compute);
}

Projection PreparedProjection::project(ComputeModel& compute) {
  const plan::StepPlan& plan = impl_->plan;
  const ProjectionOptions& options = impl_->options;
  StepModel& model = impl_->model;
  cost_tasks(model, plan, compute);

  Projection p;
  p.strategy = plan.strategy;
  p.topology = impl_->topology;
  p.compute_kind = compute.kind();
  p.compute_source = compute.description();
  p.uneven = options.uneven;
  p.dp = plan.dp();
  p.tp = plan.tp();
  p.collectives = model.collectives;
  p.compute_tasks = model.compute_tasks;

  if (options.with_overlapped_variant) {
    simulate(model, true);
    for (const RankTimeline& t : timelines(model)) {
      p.optimizer_seconds = std::max(p.optimizer_seconds, t.end);
    }
  }
  simulate(model, false);
  p.ranks = expand(model, timelines(model));

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
