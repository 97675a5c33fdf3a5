// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// rank_collectives: the collectives one rank issues in a step, with the element type and the
// bytes the communicator trace will record for them (same formulas: canzona/comm/volume.hpp).
#include <canzona/comm/trace.hpp>
#include <canzona/comm/volume.hpp>
#include <canzona/optim/matrix_optimizer.hpp>

#include <numeric>
#include <span>
#include <vector>

#include "canzona/plan/rank_work.hpp"
#include "canzona/plan/step_plan.hpp"

namespace canzona::plan {
namespace {

using Counts = std::vector<std::size_t>;

// The TP gathers move the fp32 main gradients.
constexpr comm::DataType kGradientType = comm::DataType::kFloat32;

class CollectiveList {
 public:
  CollectiveList(int dp_rank, int tp_rank, int dp, int tp)
      : dp_rank_(dp_rank), tp_rank_(tp_rank), dp_(dp), tp_(tp) {}

  PlannedCollective& add(Phase phase, Group group, comm::CollectiveOp op, comm::DataType dtype,
                         int root, const comm::Volume& volume) {
    const std::uint64_t element_bytes = comm::size_of(dtype);
    PlannedCollective c;
    c.phase = phase;
    c.group = group;
    c.op = std::string(comm::to_string(op));
    c.dtype = dtype;
    c.group_size = group == Group::kDp ? dp_ : tp_;
    c.root = root;
    c.count = volume.count;
    c.bytes_sent = volume.sent * element_bytes;
    c.bytes_received = volume.received * element_bytes;
    out_.push_back(std::move(c));
    return out_.back();
  }
  int rank(Group group) const { return group == Group::kDp ? dp_rank_ : tp_rank_; }
  std::vector<PlannedCollective> take() { return std::move(out_); }

 private:
  int dp_rank_, tp_rank_, dp_, tp_;
  std::vector<PlannedCollective> out_;
};

std::size_t local_numel(const MatrixPlan& m) {
  return static_cast<std::size_t>(m.local.rows * m.local.cols);
}

// Elements of the matrices in one slot of a micro-group, one TP shard each.
std::size_t slot_shard_numel(const StepPlan& plan, const std::vector<std::size_t>& slot) {
  std::size_t n = 0;
  for (std::size_t i : slot) n += local_numel(plan.matrices[i]);
  return n;
}

// One DP collective before any rank's view of it: the per-rank counts of an uneven
// reduce-scatter / all-gather (what a bucket's cuts or the owned entries give each rank), or the
// count of an all-reduce. Every DP rank issues the same ones in the same order.
struct DpCollectiveSpec {
  Phase phase = Phase::kGradSync;
  comm::CollectiveOp op = comm::CollectiveOp::kAllReduce;
  comm::DataType dtype = comm::DataType::kFloat32;
  Counts counts;          // reduce-scatter / all-gather
  std::size_t count = 0;  // all-reduce
  std::size_t buffer = 0;
  int bucket = -1;
  bool packed = false;  // layer-wise: every rank's owned entries, packed into staging
};

void add_grad_sync_specs(const StepPlan& plan, std::vector<DpCollectiveSpec>& out) {
  const comm::DataType dtype = plan.options.precision.grad_reduce;
  for (const BufferPlan& bp : plan.buffers) {
    const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
    for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
      DpCollectiveSpec s;
      s.phase = Phase::kGradSync;
      s.dtype = dtype;
      if (bp.grad_sync == GradSync::kReduceScatter) {
        s.op = comm::CollectiveOp::kReduceScatter;
        s.counts = bp.partition.buckets[k].counts();
      } else {
        s.op = comm::CollectiveOp::kAllReduce;
        s.count = static_cast<std::size_t>(buffer.buckets[k].size());
      }
      s.buffer = bp.buffer;
      s.bucket = static_cast<int>(k);
      out.push_back(std::move(s));
    }
  }
}

void add_param_sync_specs(const StepPlan& plan, std::vector<DpCollectiveSpec>& out) {
  const comm::DataType dtype = plan.options.precision.params;
  for (const BufferPlan& bp : plan.buffers) {
    if (bp.param_sync != ParamSync::kAllGather) continue;
    const layout::Buffer& buffer = plan.layout.buffers[bp.buffer];
    for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
      DpCollectiveSpec s;
      s.phase = Phase::kParamSync;
      s.op = comm::CollectiveOp::kAllGather;
      s.dtype = dtype;
      s.counts = bp.partition.buckets[k].counts();
      s.buffer = bp.buffer;
      s.bucket = static_cast<int>(k);
      out.push_back(std::move(s));
    }
  }
  for (const std::vector<std::size_t>& group : owned_sync_groups(plan)) {
    DpCollectiveSpec s;
    s.phase = Phase::kParamSync;
    s.op = comm::CollectiveOp::kAllGather;
    s.dtype = dtype;
    s.counts = owned_counts(plan, group);
    s.buffer = group.size() == 1 ? group.front() : kEveryBuffer;
    s.packed = true;
    out.push_back(std::move(s));
  }
}

// Every DP collective of the step in issue order: the gradient sync, then the parameter sync.
std::vector<DpCollectiveSpec> dp_collective_specs(const StepPlan& plan) {
  std::vector<DpCollectiveSpec> specs;
  if (plan.dp() > 1) {
    add_grad_sync_specs(plan, specs);
    add_param_sync_specs(plan, specs);
  }
  return specs;
}

comm::Volume rank_volume(const DpCollectiveSpec& s, int rank, int dp) {
  switch (s.op) {
    case comm::CollectiveOp::kAllReduce:
      return comm::all_reduce_volume(s.count, rank, dp);
    case comm::CollectiveOp::kReduceScatter:
      return comm::reduce_scatter_volume(s.counts, rank);
    default:
      return comm::all_gather_volume(s.counts, rank);
  }
}

// Every rank's volume of `s`: comm::reduce_scatter_volume / all_gather_volume with the counts'
// total summed once (those sum the counts on every call, O(dp^2) per collective for all ranks).
// dp_collective_slots is tested equal to rank_collectives, which calls comm's functions.
std::vector<comm::Volume> every_rank_volume(const DpCollectiveSpec& s, int dp) {
  std::vector<comm::Volume> out(static_cast<std::size_t>(dp));
  if (s.op == comm::CollectiveOp::kAllReduce) {
    for (int r = 0; r < dp; ++r) out[static_cast<std::size_t>(r)] = rank_volume(s, r, dp);
    return out;
  }
  const std::size_t total = std::accumulate(s.counts.begin(), s.counts.end(), std::size_t{0});
  const std::size_t others = s.counts.size() - 1;
  for (std::size_t r = 0; r < out.size(); ++r) {
    const std::size_t mine = s.counts[r];
    const std::uint64_t own = others * mine;  // this rank's part, to or from every other rank
    const std::uint64_t rest = total - mine;
    out[r] = s.op == comm::CollectiveOp::kReduceScatter ? comm::Volume{total, rest, own}
                                                        : comm::Volume{total, own, rest};
  }
  return out;
}

PlannedCollective& add_dp(const DpCollectiveSpec& s, const comm::Volume& volume,
                          CollectiveList& list) {
  PlannedCollective& c = list.add(s.phase, Group::kDp, s.op, s.dtype, -1, volume);
  c.buffer = s.buffer;
  c.bucket = s.bucket;
  return c;
}

// Gradient shards to their hosts: one all-to-all-v of the whole micro-group, or one gather per
// matrix.
void add_micro_group_gather(const StepPlan& plan, const MicroGroupPlan& group, int g,
                            CollectiveList& list) {
  const int t = list.rank(Group::kTp);
  if (plan.options.transport == TpTransport::kAllToAll) {
    Counts send(static_cast<std::size_t>(plan.tp()));
    Counts recv(send.size());
    const std::size_t mine = slot_shard_numel(plan, group.slots[static_cast<std::size_t>(t)]);
    for (std::size_t j = 0; j < send.size(); ++j) {
      send[j] = slot_shard_numel(plan, group.slots[j]);
      recv[j] = mine;
    }
    list.add(Phase::kTpGather, Group::kTp, comm::CollectiveOp::kAllToAll, kGradientType, -1,
             comm::all_to_all_volume(send, recv, t))
        .micro_group = g;
    return;
  }
  for (const auto& slot : group.slots) {
    for (std::size_t i : slot) {
      const Counts counts(static_cast<std::size_t>(plan.tp()), local_numel(plan.matrices[i]));
      PlannedCollective& c = list.add(Phase::kTpGather, Group::kTp, comm::CollectiveOp::kGather,
                                      kGradientType, plan.matrices[i].tp_host,
                                      comm::gather_volume(counts, t, plan.matrices[i].tp_host));
      c.micro_group = g;
      c.matrix = static_cast<int>(i);
    }
  }
}

// Update (direction) shards back from their hosts.
void add_micro_group_scatter(const StepPlan& plan, const MicroGroupPlan& group, int g,
                             CollectiveList& list) {
  const int t = list.rank(Group::kTp);
  const comm::DataType dtype = direction_type(plan.options);
  if (plan.options.transport == TpTransport::kAllToAll) {
    Counts send(static_cast<std::size_t>(plan.tp()));
    Counts recv(send.size());
    const std::size_t mine = slot_shard_numel(plan, group.slots[static_cast<std::size_t>(t)]);
    for (std::size_t j = 0; j < send.size(); ++j) {
      send[j] = mine;
      recv[j] = slot_shard_numel(plan, group.slots[j]);
    }
    list.add(Phase::kTpScatter, Group::kTp, comm::CollectiveOp::kAllToAll, dtype, -1,
             comm::all_to_all_volume(send, recv, t))
        .micro_group = g;
    return;
  }
  for (const auto& slot : group.slots) {
    for (std::size_t i : slot) {
      const Counts counts(static_cast<std::size_t>(plan.tp()), local_numel(plan.matrices[i]));
      PlannedCollective& c = list.add(Phase::kTpScatter, Group::kTp, comm::CollectiveOp::kScatter,
                                      dtype, plan.matrices[i].tp_host,
                                      comm::scatter_volume(counts, t, plan.matrices[i].tp_host));
      c.micro_group = g;
      c.matrix = static_cast<int>(i);
    }
  }
}

void add_tp(const StepPlan& plan, int dp_rank, CollectiveList& list) {
  const auto& groups = plan.micro_groups.at(static_cast<std::size_t>(dp_rank));
  const int n = static_cast<int>(groups.size());
  const auto group = [&](int g) -> const MicroGroupPlan& {
    return groups[static_cast<std::size_t>(g)];
  };
  if (plan.options.tp_execution == TpExecution::kSerial) {
    for (int g = 0; g < n; ++g) {
      add_micro_group_gather(plan, group(g), g, list);
      add_micro_group_scatter(plan, group(g), g, list);
    }
  } else {
    // Pipeline issue order: G0, then per group g: G(g+1), S(g).
    if (n > 0) add_micro_group_gather(plan, group(0), 0, list);
    for (int g = 0; g < n; ++g) {
      if (g + 1 < n) add_micro_group_gather(plan, group(g + 1), g + 1, list);
      add_micro_group_scatter(plan, group(g), g, list);
    }
  }
  // TP-SC: every TP rank gathers the whole gradient and steps the matrix itself.
  const int t = list.rank(Group::kTp);
  for (std::size_t i : plan.replicated_matrices.at(static_cast<std::size_t>(dp_rank))) {
    const MatrixPlan& m = plan.matrices[i];
    if (!m.sharded()) continue;
    const Counts counts(static_cast<std::size_t>(plan.tp()), local_numel(m));
    list.add(Phase::kTpGather, Group::kTp, comm::CollectiveOp::kAllGather, kGradientType, -1,
             comm::all_gather_volume(counts, t))
        .matrix = static_cast<int>(i);
  }
}

// What the executor does on each rank's side of the collective besides moving it (see
// DpCollectiveSlot): average the kept gradients, pack / unpack the layer-wise staging.
void add_local_elements(const DpCollectiveSpec& s, DpCollectiveSlot& slot) {
  const std::size_t total =
      s.packed ? std::accumulate(s.counts.begin(), s.counts.end(), std::size_t{0}) : 0;
  for (std::size_t r = 0; r < slot.bytes_sent.size(); ++r) {
    std::int64_t local = 0, unpacked = 0;
    if (s.phase == Phase::kGradSync) {
      local =
          static_cast<std::int64_t>(s.op == comm::CollectiveOp::kAllReduce ? s.count : s.counts[r]);
    } else if (s.packed) {
      local = static_cast<std::int64_t>(s.counts[r]);
      unpacked = static_cast<std::int64_t>(total - s.counts[r]);
    }
    slot.local_elements.push_back(local);
    slot.unpacked_elements.push_back(unpacked);
  }
}

}  // namespace

std::vector<std::vector<std::size_t>> owned_sync_groups(const StepPlan& plan) {
  std::vector<std::size_t> dense;
  std::vector<std::size_t> expert;
  for (const BufferPlan& bp : plan.buffers) {
    if (bp.param_sync != ParamSync::kAllGatherOwned) continue;
    (plan.layout.buffers[bp.buffer].expert ? expert : dense).push_back(bp.buffer);
  }
  std::vector<std::vector<std::size_t>> groups;
  if (!dense.empty()) groups.push_back(std::move(dense));
  if (!expert.empty()) groups.push_back(std::move(expert));
  return groups;
}

std::vector<std::size_t> owned_counts(const StepPlan& plan, const std::vector<std::size_t>& group) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(plan.dp()), 0);
  for (std::size_t b : group) {
    const layout::Buffer& buffer = plan.layout.buffers.at(b);
    const BufferPlan& bp = plan.buffers.at(b);
    for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
      const int owner = bp.owner[e];
      if (owner >= 0) {
        counts[static_cast<std::size_t>(owner)] +=
            static_cast<std::size_t>(buffer.entries[e].numel());
      }
    }
  }
  return counts;
}

comm::DataType direction_type(const StrategyOptions& options) {
  return optim::direction_type(options.optimizer) == backend::ElementType::kBFloat16
             ? comm::DataType::kBFloat16
             : comm::DataType::kFloat32;
}

std::vector<PlannedCollective> tp_collectives(const StepPlan& plan, int dp_rank, int tp_rank) {
  CollectiveList list(dp_rank, tp_rank, plan.dp(), plan.tp());
  if (plan.tp() > 1) add_tp(plan, dp_rank, list);
  return list.take();
}

std::vector<DpCollectiveSlot> dp_collective_slots(const StepPlan& plan) {
  std::vector<DpCollectiveSlot> slots;
  CollectiveList list(0, 0, plan.dp(), plan.tp());
  for (const DpCollectiveSpec& s : dp_collective_specs(plan)) {
    const std::vector<comm::Volume> volumes = every_rank_volume(s, plan.dp());
    DpCollectiveSlot slot;
    slot.collective = add_dp(s, volumes.front(), list);
    for (const comm::Volume& v : volumes) {
      slot.bytes_sent.push_back(v.sent * comm::size_of(s.dtype));
      slot.bytes_received.push_back(v.received * comm::size_of(s.dtype));
    }
    add_local_elements(s, slot);
    slots.push_back(std::move(slot));
  }
  return slots;
}

std::vector<PlannedCollective> rank_collectives(const StepPlan& plan, int dp_rank, int tp_rank) {
  CollectiveList list(dp_rank, tp_rank, plan.dp(), plan.tp());
  const std::vector<DpCollectiveSpec> dp_specs = dp_collective_specs(plan);
  const auto add_phase = [&](Phase phase) {
    for (const DpCollectiveSpec& s : dp_specs) {
      if (s.phase == phase) add_dp(s, rank_volume(s, dp_rank, plan.dp()), list);
    }
  };
  add_phase(Phase::kGradSync);
  if (plan.tp() > 1) add_tp(plan, dp_rank, list);
  add_phase(Phase::kParamSync);
  return list.take();
}

}  // namespace canzona::plan
