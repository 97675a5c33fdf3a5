// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "dp_sync.hpp"

#include <algorithm>
#include <numeric>

namespace canzona::exec::detail {
namespace {

constexpr comm::DataType kFp32 = comm::DataType::kFloat32;

}  // namespace

DpSync::DpSync(StepContext& ctx) : ctx_(ctx) {
  const int dp = ctx.plan.dp();
  if (dp == 1) return;
  // Exact for the power-of-two DP sizes of the equivalence tests; the reference averages the
  // same way (sum, then × 1/dp).
  inverse_dp_ = 1.0f / static_cast<float>(dp);
  for (const plan::BufferPlan& bp : ctx.plan.buffers) add_grad_ops(bp);
  for (const plan::BufferPlan& bp : ctx.plan.buffers) add_param_ops(bp);
  requests_.resize(std::max(grad_ops_.size(), param_ops_.size()));
}

void DpSync::add_grad_ops(const plan::BufferPlan& bp) {
  const layout::Buffer& buffer = ctx_.plan.layout.buffers[bp.buffer];
  float* grads = ctx_.grads[bp.buffer];
  for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
    const layout::Bucket& bucket = buffer.buckets[k];
    GradOp op;
    op.bucket = grads + bucket.start;
    if (bp.grad_sync == plan::GradSync::kReduceScatter) {
      const plan::BucketCuts& cuts = bp.partition.buckets[k];
      op.counts = cuts.counts();
      op.keep = grads + cuts.pos[static_cast<std::size_t>(ctx_.dp_rank)];
      op.keep_count = cuts.slice(ctx_.dp_rank);
    } else {
      op.reduce_scatter = false;
      op.count = static_cast<std::size_t>(bucket.size());
      op.keep = op.bucket;
      op.keep_count = bucket.size();
    }
    grad_ops_.push_back(std::move(op));
  }
}

void DpSync::add_param_ops(const plan::BufferPlan& bp) {
  const layout::Buffer& buffer = ctx_.plan.layout.buffers[bp.buffer];
  float* params = ctx_.params[bp.buffer];
  if (bp.param_sync == plan::ParamSync::kAllGather) {
    for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
      const plan::BucketCuts& cuts = bp.partition.buckets[k];
      ParamOp op;
      op.recv = params + buffer.buckets[k].start;
      op.send = params + cuts.pos[static_cast<std::size_t>(ctx_.dp_rank)];
      op.counts = cuts.counts();
      param_ops_.push_back(std::move(op));
    }
    return;
  }
  if (bp.param_sync != plan::ParamSync::kAllGatherOwned) return;  // kNone: nothing moves
  // Layer-wise: every rank's owned entries, packed rank-major in buffer entry order.
  ParamOp op;
  op.counts = plan::owned_counts(ctx_.plan, bp);
  std::vector<std::size_t> offset(op.counts.size(), 0);
  std::exclusive_scan(op.counts.begin(), op.counts.end(), offset.begin(), std::size_t{0});
  const std::size_t total = offset.back() + op.counts.back();
  staging_.push_back(ctx_.allocate_floats(static_cast<std::int64_t>(total)));
  op.recv = staging_.back().as<float>();
  op.send = op.recv + offset[static_cast<std::size_t>(ctx_.dp_rank)];
  for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
    const int owner = bp.owner[e];
    if (owner < 0) continue;
    const layout::BufferEntry& entry = buffer.entries[e];
    float* packed = op.recv + offset[static_cast<std::size_t>(owner)];
    offset[static_cast<std::size_t>(owner)] += static_cast<std::size_t>(entry.numel());
    if (owner == ctx_.dp_rank) {
      op.pack.push_back(contiguous(packed, params + entry.start, entry.numel()));
    } else {
      op.unpack.push_back(contiguous(params + entry.start, packed, entry.numel()));
    }
  }
  param_ops_.push_back(std::move(op));
}

void DpSync::grad_sync() {
  if (grad_ops_.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kGradSync);
  ctx_.ordering.comm_after_backend(ctx_.dp);
  for (std::size_t i = 0; i < grad_ops_.size(); ++i) {
    GradOp& op = grad_ops_[i];
    if (op.reduce_scatter) {
      // In place: this rank's part lands at its own offset inside the bucket.
      requests_[i] =
          ctx_.dp.reduce_scatter(op.bucket, op.keep, op.counts, kFp32, comm::ReduceOp::kSum);
    } else {
      requests_[i] =
          ctx_.dp.all_reduce(op.bucket, op.bucket, op.count, kFp32, comm::ReduceOp::kSum);
    }
  }
  for (std::size_t i = 0; i < grad_ops_.size(); ++i) {
    ctx_.await(requests_[i]);
    const GradOp& op = grad_ops_[i];
    if (op.keep_count > 0) {
      ctx_.backend.axpby(op.keep, op.keep, backend::ElementType::kFloat32, op.keep_count,
                         inverse_dp_, 0.0f);
    }
  }
}

void DpSync::param_sync() {
  if (param_ops_.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kParamSync);
  for (const ParamOp& op : param_ops_) run_copies(ctx_.backend, op.pack);
  ctx_.ordering.comm_after_backend(ctx_.dp);
  for (std::size_t i = 0; i < param_ops_.size(); ++i) {
    ParamOp& op = param_ops_[i];
    requests_[i] = ctx_.dp.all_gather(op.send, op.recv, op.counts, kFp32);
  }
  for (std::size_t i = 0; i < param_ops_.size(); ++i) {
    ctx_.await(requests_[i]);
    run_copies(ctx_.backend, param_ops_[i].unpack);
  }
}

}  // namespace canzona::exec::detail
