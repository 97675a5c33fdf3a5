// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "tp_pipeline.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace canzona::exec::detail {
namespace {

constexpr comm::DataType kFp32 = comm::DataType::kFloat32;

std::int64_t local_numel(const plan::MatrixPlan& m) { return m.local.rows * m.local.cols; }
std::int64_t full_numel(const plan::MatrixPlan& m) { return m.full.rows * m.full.cols; }

std::vector<std::size_t> equal_counts(int ranks, std::int64_t count) {
  return std::vector<std::size_t>(static_cast<std::size_t>(ranks), static_cast<std::size_t>(count));
}

std::vector<std::size_t> strided_displs(int ranks, std::int64_t stride) {
  std::vector<std::size_t> displs(static_cast<std::size_t>(ranks));
  for (int j = 0; j < ranks; ++j) displs[static_cast<std::size_t>(j)] = j * stride;
  return displs;
}

}  // namespace

std::vector<ShardApply> shard_applies(const StepContext& ctx, const plan::MatrixPlan& m,
                                      const void* direction_shard, std::size_t direction_bytes) {
  std::vector<ShardApply> out;
  float* param = ctx.matrix_param(m);
  for (const ShardBlock& b : shard_blocks(m, ctx.plan.tp())) {
    if (b.shard != ctx.tp_rank) continue;
    // A block of a shard is contiguous in the shard's own layout (a run of whole shard rows).
    const model::Fragment& f = m.fragments[b.fragment];
    out.push_back(ShardApply{param + b.shard_offset,
                             offset(direction_shard, b.shard_offset, direction_bytes),
                             b.rows * b.width, optim::Shape{f.shape.at(0), f.shape.at(1)}});
  }
  return out;
}

void apply_pieces(optim::MatrixOptimizer& optimizer, const StepContext& ctx,
                  const std::vector<ShardApply>& pieces) {
  for (const ShardApply& a : pieces) {
    optimizer.apply_direction(a.param, a.direction, a.count, a.fragment, ctx.step);
  }
}

TpPipeline::TpPipeline(StepContext& ctx, optim::MatrixOptimizer& optimizer)
    : ctx_(ctx), optimizer_(optimizer) {
  const int tp = ctx.plan.tp();
  if (tp == 1 || ctx.plan.micro_groups.empty()) return;
  const auto& plan_groups = ctx.plan.micro_groups.at(static_cast<std::size_t>(ctx.dp_rank));
  if (plan_groups.empty()) return;
  all_to_all_ = ctx.plan.options.transport == plan::TpTransport::kAllToAll;
  serial_ = ctx.plan.options.tp_execution == plan::TpExecution::kSerial;
  const backend::ElementType direction = optimizer.direction_type();
  direction_type_ = direction == backend::ElementType::kBFloat16 ? comm::DataType::kBFloat16
                                                                 : comm::DataType::kFloat32;
  direction_bytes_ = backend::element_size(direction);

  std::int64_t max_shards = 0;
  std::int64_t max_hosted = 0;
  for (const plan::MicroGroupPlan& group : plan_groups) {
    if (group.slots.size() != static_cast<std::size_t>(tp)) {
      throw Error(fmt::format("executor: a micro-group has {} slots for a TP group of {}",
                              group.slots.size(), tp));
    }
    std::int64_t shards = 0;
    for (const auto& slot : group.slots) {
      for (std::size_t k : slot) shards += local_numel(ctx.plan.matrices.at(k));
    }
    std::int64_t hosted = 0;
    for (std::size_t k : group.slots[static_cast<std::size_t>(ctx.tp_rank)]) {
      hosted += full_numel(ctx.plan.matrices[k]);
    }
    max_shards = std::max(max_shards, shards);
    max_hosted = std::max(max_hosted, hosted);
  }
  // fp32 gradients in one direction, directions (never wider than fp32) in the other.
  sets_.resize(std::min(plan::kPipelineStagingSets, plan_groups.size()));
  for (StagingSet& set : sets_) {
    set.shards = ctx.allocate_floats(max_shards);
    set.hosted = ctx.allocate_floats(max_hosted);
  }
  fragment_grads_ = ctx.allocate_floats(max_hosted);
  fragment_directions_ = ctx.allocate(max_hosted, direction);
  groups_.resize(plan_groups.size());
  for (std::size_t g = 0; g < plan_groups.size(); ++g) {
    build_group(g, plan_groups[g], sets_[g % sets_.size()]);
  }
}

void TpPipeline::build_group(std::size_t g, const plan::MicroGroupPlan& plan_group,
                             StagingSet& set) {
  const int tp = ctx_.plan.tp();
  const int t = ctx_.tp_rank;
  const std::size_t db = direction_bytes_;
  void* shards = set.shards.data();  // G send (fp32), then S receive (directions)
  void* hosted = set.hosted.data();  // G receive (fp32), then S send (directions)
  Group& group = groups_[g];

  // Shard area, destination-major: the gradient shard of every matrix of slot 0, then slot 1,
  // ... (G's payload); S's all-to-all then lands this rank's direction shard of each of those
  // matrices at the same element offset.
  std::vector<std::size_t> shard_counts(static_cast<std::size_t>(tp));
  std::vector<std::size_t> shard_displs(shard_counts.size());
  std::size_t first_hosted = 0;  // index of this rank's first matrix in gathers / scatters
  std::int64_t shard_offset = 0;
  for (int j = 0; j < tp; ++j) {
    const auto jj = static_cast<std::size_t>(j);
    shard_displs[jj] = static_cast<std::size_t>(shard_offset);
    if (j == t) first_hosted = group.gathers.size();
    for (std::size_t k : plan_group.slots[jj]) {
      const plan::MatrixPlan& m = ctx_.plan.matrices[k];
      if (!m.sharded() || m.tp_host != j) {
        throw Error(
            fmt::format("executor: matrix '{}' sits in slot {} of a micro-group but its "
                        "host is {} (sharded: {})",
                        m.name, j, m.tp_host, m.sharded()));
      }
      const std::int64_t local = local_numel(m);
      void* grad_shard = offset(shards, shard_offset, sizeof(float));
      void* direction_shard = offset(shards, shard_offset, db);
      group.pack.push_back(contiguous(grad_shard, ctx_.matrix_grad(m), local));
      const std::vector<ShardApply> mine = shard_applies(ctx_, m, direction_shard, db);
      group.apply.insert(group.apply.end(), mine.begin(), mine.end());
      if (!all_to_all_) {
        // recv (gather) and send (scatter) are set below on the host; null elsewhere.
        group.gathers.push_back(Rooted{grad_shard, nullptr, static_cast<std::size_t>(local),
                                       equal_counts(tp, local), j});
        group.scatters.push_back(Rooted{nullptr, direction_shard, static_cast<std::size_t>(local),
                                        equal_counts(tp, local), j});
      }
      shard_offset += local;
    }
    shard_counts[jj] = static_cast<std::size_t>(shard_offset) - shard_displs[jj];
  }

  // Hosted area of the matrices this rank hosts. All-to-all: source-major blocks of `block`
  // elements (one shard per hosted matrix); gather-scatter: one region of tp·local elements
  // per matrix, rank-major inside. G fills it with fp32 gradient shards; after assembly S sends
  // direction shards from it with the same layout in the direction type.
  const auto& mine = plan_group.slots[static_cast<std::size_t>(t)];
  std::int64_t block = 0;
  for (std::size_t k : mine) block += local_numel(ctx_.plan.matrices[k]);
  auto* fragment_grads = fragment_grads_.as<float>();
  void* fragment_directions = fragment_directions_.data();
  std::int64_t fragment_base = 0;
  std::int64_t region = 0;
  std::int64_t shard_in_block = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const std::size_t k = mine[i];
    const plan::MatrixPlan& m = ctx_.plan.matrices[k];
    const std::int64_t local = local_numel(m);
    // Element index of rank j's shard of this matrix inside the hosted area.
    auto shard_of = [&](int j) {
      return all_to_all_ ? j * block + shard_in_block : region + j * local;
    };
    const std::vector<std::int64_t> starts = fragment_starts(m);
    for (const ShardBlock& b : shard_blocks(m, tp)) {
      const std::int64_t fragment = fragment_base + starts[b.fragment];
      group.assemble.push_back(to_fragment(b, fragment_grads + fragment,
                                           offset(hosted, shard_of(b.shard), sizeof(float))));
      group.pack_scatter.push_back(to_shard(b, offset(hosted, shard_of(b.shard), db),
                                            offset(fragment_directions, fragment, db), db));
    }
    for (std::size_t f = 0; f < m.fragments.size(); ++f) {
      const model::Fragment& fragment = m.fragments[f];
      states_.push_back(optimizer_.make_state(fragment.shape[0], fragment.shape[1]));
      ctx_.allocated_bytes += states_.back()->bytes();
      ctx_.record_state(k, f, states_.back().get());
      optim::StepTask task;
      task.state = states_.back().get();
      task.grad = fragment_grads + fragment_base + starts[f];
      task.direction = offset(fragment_directions, fragment_base + starts[f], db);
      task.shape = optim::Shape{fragment.shape[0], fragment.shape[1]};
      task.name = fragment.name;
      group.batch.tasks.push_back(task);
      group.batch.hits.push_back(UsageHit{ctx_.usage.fragment_entry(k, f), fragment.numel()});
    }
    if (!all_to_all_) {
      group.gathers[first_hosted + i].recv = offset(hosted, region, sizeof(float));
      group.scatters[first_hosted + i].send = offset(hosted, region, db);
    }
    fragment_base += full_numel(m);
    region += tp * local;
    shard_in_block += local;
  }

  if (all_to_all_) {
    group.gather = AllToAll{shards,
                            hosted,
                            shard_counts,
                            shard_displs,
                            equal_counts(tp, block),
                            strided_displs(tp, block)};
    group.scatter =
        AllToAll{hosted,       shards,      equal_counts(tp, block), strided_displs(tp, block),
                 shard_counts, shard_displs};
    group.gather_requests.resize(1);
    group.scatter_requests.resize(1);
  } else {
    group.gather_requests.resize(group.gathers.size());
    group.scatter_requests.resize(group.scatters.size());
  }
}

void TpPipeline::issue_gather(std::size_t g) {
  Group& group = groups_[g];
  group.pack.run(ctx_.backend);
  ctx_.ordering.comm_after_backend(ctx_.tp);
  if (all_to_all_) {
    const AllToAll& a = group.gather;
    group.gather_requests[0] = ctx_.tp.all_to_all(a.send, a.send_counts, a.send_displs, a.recv,
                                                  a.recv_counts, a.recv_displs, kFp32);
    return;
  }
  for (std::size_t i = 0; i < group.gathers.size(); ++i) {
    const Rooted& r = group.gathers[i];
    group.gather_requests[i] = ctx_.tp.gather(r.send, r.count, r.recv, r.counts, kFp32, r.root);
  }
}

void TpPipeline::complete_gather(std::size_t g) {
  Group& group = groups_[g];
  for (comm::Request& request : group.gather_requests) ctx_.await(request);
  group.assemble.run(ctx_.backend);
}

void TpPipeline::compute(std::size_t g) { run_batch(optimizer_, groups_[g].batch, ctx_.usage); }

void TpPipeline::issue_scatter(std::size_t g) {
  Group& group = groups_[g];
  group.pack_scatter.run(ctx_.backend);
  ctx_.ordering.comm_after_backend(ctx_.tp);
  if (all_to_all_) {
    const AllToAll& a = group.scatter;
    group.scatter_requests[0] = ctx_.tp.all_to_all(a.send, a.send_counts, a.send_displs, a.recv,
                                                   a.recv_counts, a.recv_displs, direction_type_);
  } else {
    for (std::size_t i = 0; i < group.scatters.size(); ++i) {
      const Rooted& r = group.scatters[i];
      group.scatter_requests[i] =
          ctx_.tp.scatter(r.send, r.counts, r.recv, r.count, direction_type_, r.root);
    }
  }
  group.scatter_pending = true;
}

void TpPipeline::complete_scatter(std::size_t g) {
  Group& group = groups_[g];
  if (!group.scatter_pending) return;
  for (comm::Request& request : group.scatter_requests) ctx_.await(request);
  apply_pieces(optimizer_, ctx_, group.apply);
  group.scatter_pending = false;
}

void TpPipeline::start() {
  if (groups_.empty() || serial_) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kTpGather);
  issue_gather(0);
}

void TpPipeline::run() {
  const std::size_t n = groups_.size();
  const std::size_t sets = sets_.size();
  for (std::size_t g = 0; g < n; ++g) {
    if (serial_) {
      const ScopedSlot phase(ctx_.timer, TimerSlot::kTpGather);
      issue_gather(g);
    } else if (g + 1 < n) {
      if (g + 1 >= sets) {
        // G(g + 1) reuses the staging set of S(g + 1 − sets): that scatter must be done.
        const ScopedSlot phase(ctx_.timer, TimerSlot::kTpScatter);
        complete_scatter(g + 1 - sets);
      }
      const ScopedSlot phase(ctx_.timer, TimerSlot::kTpGather);
      issue_gather(g + 1);
    }
    {
      const ScopedSlot phase(ctx_.timer, TimerSlot::kTpGather);
      complete_gather(g);
    }
    {
      const ScopedSlot phase(ctx_.timer, TimerSlot::kCompute);
      compute(g);
    }
    const ScopedSlot phase(ctx_.timer, TimerSlot::kTpScatter);
    issue_scatter(g);
    if (serial_) complete_scatter(g);
  }
}

void TpPipeline::finish() {
  if (groups_.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kTpScatter);
  for (std::size_t g = 0; g < groups_.size(); ++g) complete_scatter(g);
}

std::vector<const TrackedBatch*> TpPipeline::batches() const {
  std::vector<const TrackedBatch*> out;
  for (const Group& group : groups_) out.push_back(&group.batch);
  return out;
}

}  // namespace canzona::exec::detail
