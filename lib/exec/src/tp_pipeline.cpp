// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "tp_pipeline.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace canzona::exec::detail {
namespace {

constexpr comm::DataType kFp32 = comm::DataType::kFloat32;
// G(g + 1) fills one set while g computes from another and S(g − 1) still drains a third.
constexpr std::size_t kStagingSets = 3;

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

// First element of each fragment inside the matrix's fragment area.
std::vector<std::int64_t> fragment_starts(const plan::MatrixPlan& m) {
  std::vector<std::int64_t> starts;
  std::int64_t offset = 0;
  for (const model::Fragment& f : m.fragments) {
    starts.push_back(offset);
    offset += f.numel();
  }
  return starts;
}

}  // namespace

TpPipeline::TpPipeline(StepContext& ctx, optim::MatrixOptimizer& optimizer)
    : ctx_(ctx), optimizer_(optimizer) {
  const int tp = ctx.plan.tp();
  if (tp == 1 || ctx.plan.micro_groups.empty()) return;
  const auto& plan_groups = ctx.plan.micro_groups.at(static_cast<std::size_t>(ctx.dp_rank));
  if (plan_groups.empty()) return;
  all_to_all_ = ctx.plan.options.transport == plan::TpTransport::kAllToAll;

  std::int64_t max_send = 0;
  std::int64_t max_hosted = 0;
  for (const plan::MicroGroupPlan& group : plan_groups) {
    if (group.slots.size() != static_cast<std::size_t>(tp)) {
      throw Error(fmt::format("executor: a micro-group has {} slots for a TP group of {}",
                              group.slots.size(), tp));
    }
    std::int64_t send = 0;
    for (const auto& slot : group.slots) {
      for (std::size_t k : slot) send += 2 * local_numel(ctx.plan.matrices.at(k));
    }
    std::int64_t hosted = 0;
    for (std::size_t k : group.slots[static_cast<std::size_t>(ctx.tp_rank)]) {
      hosted += full_numel(ctx.plan.matrices[k]);
    }
    max_send = std::max(max_send, send);
    max_hosted = std::max(max_hosted, hosted);
  }
  sets_.resize(std::min(kStagingSets, plan_groups.size()));
  for (StagingSet& set : sets_) {
    set.send = ctx.allocate_floats(max_send);
    set.recv = ctx.allocate_floats(2 * max_hosted);
  }
  fragment_grads_ = ctx.allocate_floats(max_hosted);
  fragment_params_ = ctx.allocate_floats(max_hosted);
  groups_.resize(plan_groups.size());
  for (std::size_t g = 0; g < plan_groups.size(); ++g) {
    build_group(g, plan_groups[g], sets_[g % sets_.size()]);
  }
}

void TpPipeline::build_group(std::size_t g, const plan::MicroGroupPlan& plan_group,
                             StagingSet& set) {
  const int tp = ctx_.plan.tp();
  const int t = ctx_.tp_rank;
  float* send = set.send.as<float>();
  float* recv = set.recv.as<float>();
  Group& group = groups_[g];

  // Send area, destination-major: [grad, param] shards of every matrix of slot 0, then slot 1,
  // ... (G's payload). S's all-to-all receives this rank's updated shards into it, again
  // host-major, one param shard per matrix.
  std::vector<std::size_t> gather_counts(static_cast<std::size_t>(tp));
  std::vector<std::size_t> gather_displs(gather_counts.size());
  std::vector<std::size_t> scatter_counts(gather_counts.size());
  std::vector<std::size_t> scatter_displs(gather_counts.size());
  std::size_t first_hosted = 0;  // index of this rank's first matrix in gathers / scatters
  std::int64_t pair_offset = 0;
  std::int64_t shard_offset = 0;
  for (int j = 0; j < tp; ++j) {
    const auto jj = static_cast<std::size_t>(j);
    gather_displs[jj] = static_cast<std::size_t>(pair_offset);
    scatter_displs[jj] = static_cast<std::size_t>(shard_offset);
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
      float* pair = send + pair_offset;
      group.pack.push_back(contiguous(pair, ctx_.matrix_grad(m), local));
      group.pack.push_back(contiguous(pair + local, ctx_.matrix_param(m), local));
      if (all_to_all_) {
        group.unpack.push_back(contiguous(ctx_.matrix_param(m), send + shard_offset, local));
      } else {
        // recv (gather) and send (scatter) are set below on the host; null elsewhere.
        group.gathers.push_back(Rooted{pair, nullptr, static_cast<std::size_t>(2 * local),
                                       equal_counts(tp, 2 * local), j});
        group.scatters.push_back(Rooted{nullptr, ctx_.matrix_param(m),
                                        static_cast<std::size_t>(local), equal_counts(tp, local),
                                        j});
      }
      pair_offset += 2 * local;
      shard_offset += local;
    }
    gather_counts[jj] = static_cast<std::size_t>(pair_offset) - gather_displs[jj];
    scatter_counts[jj] = static_cast<std::size_t>(shard_offset) - scatter_displs[jj];
  }

  // Receive area of the matrices this rank hosts. All-to-all: source-major blocks of
  // `block` elements ([grad, param] per hosted matrix); gather-scatter: one region of 2·full per
  // matrix, rank-major pairs inside. After assembly the same area carries S's payload: updated
  // param shards, destination-major (all-to-all) or rank-major per matrix region.
  const auto& hosted = plan_group.slots[static_cast<std::size_t>(t)];
  std::int64_t block = 0;
  for (std::size_t k : hosted) block += 2 * local_numel(ctx_.plan.matrices[k]);
  float* fragment_grads = fragment_grads_.as<float>();
  float* fragment_params = fragment_params_.as<float>();
  std::int64_t fragment_base = 0;
  std::int64_t region = 0;
  std::int64_t pair_in_block = 0;
  std::int64_t shard_in_block = 0;
  for (std::size_t i = 0; i < hosted.size(); ++i) {
    const std::size_t k = hosted[i];
    const plan::MatrixPlan& m = ctx_.plan.matrices[k];
    const std::int64_t local = local_numel(m);
    auto pair_of = [&](int j) {
      return all_to_all_ ? recv + j * block + pair_in_block : recv + region + j * 2 * local;
    };
    auto shard_of = [&](int j) {
      return all_to_all_ ? recv + j * (block / 2) + shard_in_block : recv + region + j * local;
    };
    const std::vector<std::int64_t> starts = fragment_starts(m);
    for (const ShardBlock& b : shard_blocks(m, tp)) {
      float* fg = fragment_grads + fragment_base + starts[b.fragment];
      float* fp = fragment_params + fragment_base + starts[b.fragment];
      group.assemble.push_back(to_fragment(b, fg, pair_of(b.shard)));
      group.assemble.push_back(to_fragment(b, fp, pair_of(b.shard) + local));
      group.pack_scatter.push_back(to_shard(b, shard_of(b.shard), fp));
    }
    for (std::size_t f = 0; f < m.fragments.size(); ++f) {
      const model::Fragment& fragment = m.fragments[f];
      states_.push_back(optimizer_.make_state(fragment.shape[0], fragment.shape[1]));
      ctx_.allocated_bytes += states_.back()->bytes();
      optim::StepTask task;
      task.state = states_.back().get();
      task.param = fragment_params + fragment_base + starts[f];
      task.grad = fragment_grads + fragment_base + starts[f];
      task.shape = optim::Shape{fragment.shape[0], fragment.shape[1]};
      task.name = fragment.name;
      group.batch.tasks.push_back(task);
      group.batch.hits.push_back(UsageHit{ctx_.usage.fragment_entry(k, f), fragment.numel()});
    }
    if (!all_to_all_) {
      group.gathers[first_hosted + i].recv = recv + region;
      group.scatters[first_hosted + i].send = recv + region;
    }
    fragment_base += full_numel(m);
    region += 2 * full_numel(m);
    pair_in_block += 2 * local;
    shard_in_block += local;
  }

  if (all_to_all_) {
    group.gather = AllToAll{send,
                            recv,
                            gather_counts,
                            gather_displs,
                            equal_counts(tp, block),
                            strided_displs(tp, block)};
    group.scatter = AllToAll{
        recv,           send,          equal_counts(tp, block / 2), strided_displs(tp, block / 2),
        scatter_counts, scatter_displs};
    group.gather_requests.resize(1);
    group.scatter_requests.resize(1);
  } else {
    group.gather_requests.resize(group.gathers.size());
    group.scatter_requests.resize(group.scatters.size());
  }
}

void TpPipeline::issue_gather(std::size_t g) {
  Group& group = groups_[g];
  run_copies(ctx_.backend, group.pack);
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
  run_copies(ctx_.backend, group.assemble);
}

void TpPipeline::compute(std::size_t g) { run_batch(optimizer_, groups_[g].batch, ctx_.usage); }

void TpPipeline::issue_scatter(std::size_t g) {
  Group& group = groups_[g];
  run_copies(ctx_.backend, group.pack_scatter);
  ctx_.ordering.comm_after_backend(ctx_.tp);
  if (all_to_all_) {
    const AllToAll& a = group.scatter;
    group.scatter_requests[0] = ctx_.tp.all_to_all(a.send, a.send_counts, a.send_displs, a.recv,
                                                   a.recv_counts, a.recv_displs, kFp32);
  } else {
    for (std::size_t i = 0; i < group.scatters.size(); ++i) {
      const Rooted& r = group.scatters[i];
      group.scatter_requests[i] = ctx_.tp.scatter(r.send, r.counts, r.recv, r.count, kFp32, r.root);
    }
  }
  group.scatter_pending = true;
}

void TpPipeline::complete_scatter(std::size_t g) {
  Group& group = groups_[g];
  if (!group.scatter_pending) return;
  for (comm::Request& request : group.scatter_requests) ctx_.await(request);
  run_copies(ctx_.backend, group.unpack);
  group.scatter_pending = false;
}

void TpPipeline::start() {
  if (groups_.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kTpGather);
  issue_gather(0);
}

void TpPipeline::run() {
  const std::size_t n = groups_.size();
  const std::size_t sets = sets_.size();
  for (std::size_t g = 0; g < n; ++g) {
    if (g + 1 < n) {
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
