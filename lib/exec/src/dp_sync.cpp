// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "dp_sync.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace canzona::exec::detail {

DpSync::DpSync(StepContext& ctx)
    : ctx_(ctx), grad_type_(ctx.grad_type), param_type_(ctx.param_type) {
  const int dp = ctx.plan.dp();
  if (dp == 1) return;
  // Exact for the power-of-two DP sizes of the equivalence tests; the reference averages the
  // same way (sum, then × 1/dp).
  inverse_dp_ = 1.0f / static_cast<float>(dp);
  for (const plan::BufferPlan& bp : ctx.plan.buffers) {
    first_grad_op_.push_back(grad_ops_.size());
    add_grad_ops(bp);
  }
  ready_.assign(grad_ops_.size(), false);
  for (const plan::BufferPlan& bp : ctx.plan.buffers) add_bucket_param_ops(bp);
  for (const std::vector<std::size_t>& group : plan::owned_sync_groups(ctx.plan)) {
    add_owned_param_op(group);
  }
  requests_.resize(std::max(grad_ops_.size(), param_ops_.size()));
}

void DpSync::add_grad_ops(const plan::BufferPlan& bp) {
  const layout::Buffer& buffer = ctx_.plan.layout.buffers[bp.buffer];
  const std::size_t es = comm::size_of(grad_type_);
  void* grads = ctx_.grads[bp.buffer];
  for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
    const layout::Bucket& bucket = buffer.buckets[k];
    GradOp op;
    op.bucket = offset(grads, bucket.start, es);
    if (bp.grad_sync == plan::GradSync::kReduceScatter) {
      const plan::BucketCuts& cuts = bp.partition.buckets[k];
      op.counts = cuts.counts();
      op.keep = offset(grads, cuts.pos[static_cast<std::size_t>(ctx_.dp_rank)], es);
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

void DpSync::add_bucket_param_ops(const plan::BufferPlan& bp) {
  if (bp.param_sync != plan::ParamSync::kAllGather) return;
  const layout::Buffer& buffer = ctx_.plan.layout.buffers[bp.buffer];
  const std::size_t es = comm::size_of(param_type_);
  void* params = ctx_.params[bp.buffer];
  for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
    const plan::BucketCuts& cuts = bp.partition.buckets[k];
    ParamOp op;
    op.recv = offset(params, buffer.buckets[k].start, es);
    op.send = offset(params, cuts.pos[static_cast<std::size_t>(ctx_.dp_rank)], es);
    op.counts = cuts.counts();
    param_ops_.push_back(std::move(op));
  }
}

// Layer-wise: every rank's owned entries of the group's buffers, packed rank-major, buffer by
// buffer in group order, entry order inside a buffer.
void DpSync::add_owned_param_op(const std::vector<std::size_t>& group) {
  const std::size_t es = comm::size_of(param_type_);
  ParamOp op;
  op.counts = plan::owned_counts(ctx_.plan, group);
  std::vector<std::size_t> next(op.counts.size(), 0);
  std::exclusive_scan(op.counts.begin(), op.counts.end(), next.begin(), std::size_t{0});
  const std::size_t total = next.back() + op.counts.back();
  staging_.push_back(ctx_.allocate(static_cast<std::int64_t>(total), element_type(param_type_)));
  op.recv = staging_.back().data();
  op.send =
      offset(op.recv, static_cast<std::int64_t>(next[static_cast<std::size_t>(ctx_.dp_rank)]), es);
  for (std::size_t b : group) {
    const layout::Buffer& buffer = ctx_.plan.layout.buffers[b];
    const plan::BufferPlan& bp = ctx_.plan.buffers[b];
    for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
      const int owner = bp.owner[e];
      if (owner < 0) continue;
      const layout::BufferEntry& entry = buffer.entries[e];
      std::size_t& at = next[static_cast<std::size_t>(owner)];
      void* packed = offset(op.recv, static_cast<std::int64_t>(at), es);
      void* param = offset(ctx_.params[b], entry.start, es);
      at += static_cast<std::size_t>(entry.numel());
      if (owner == ctx_.dp_rank) {
        op.pack.push_back(contiguous(packed, param, entry.numel(), es));
      } else {
        op.unpack.push_back(contiguous(param, packed, entry.numel(), es));
      }
    }
  }
  param_ops_.push_back(std::move(op));
}

void DpSync::issue_grad_op(std::size_t i) {
  GradOp& op = grad_ops_[i];
  if (op.reduce_scatter) {
    // In place: this rank's part lands at its own offset inside the bucket.
    requests_[i] =
        ctx_.dp.reduce_scatter(op.bucket, op.keep, op.counts, grad_type_, comm::ReduceOp::kSum);
  } else {
    requests_[i] =
        ctx_.dp.all_reduce(op.bucket, op.bucket, op.count, grad_type_, comm::ReduceOp::kSum);
  }
}

void DpSync::grad_bucket_ready(std::size_t buffer, std::size_t bucket) {
  if (grad_ops_.empty()) return;
  const std::size_t marked = first_grad_op_.at(buffer) + bucket;
  if (ready_[marked]) {
    throw Error(
        fmt::format("gradient bucket {} of buffer '{}' was marked ready twice before the "
                    "gradient sync completed",
                    bucket, ctx_.plan.layout.buffers[buffer].name));
  }
  ready_[marked] = true;
  // Every rank issues the same sequence whatever order its buckets complete in.
  while (issued_ < grad_ops_.size() && ready_[issued_]) {
    ctx_.ordering.comm_after_backend(ctx_.dp);
    issue_grad_op(issued_++);
  }
  for (std::size_t i = 0; i < issued_; ++i) (void)requests_[i].test();
}

void DpSync::grad_sync() {
  if (grad_ops_.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kGradSync);
  if (issued_ < grad_ops_.size()) ctx_.ordering.comm_after_backend(ctx_.dp);
  while (issued_ < grad_ops_.size()) issue_grad_op(issued_++);
  const backend::ElementType type = element_type(grad_type_);
  for (std::size_t i = 0; i < grad_ops_.size(); ++i) {
    ctx_.await(requests_[i]);
    const GradOp& op = grad_ops_[i];
    if (op.keep_count > 0) {
      ctx_.backend.axpby(op.keep, op.keep, type, op.keep_count, inverse_dp_, 0.0f);
    }
  }
  issued_ = 0;
  std::fill(ready_.begin(), ready_.end(), false);
}

void DpSync::param_sync() {
  if (param_ops_.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kParamSync);
  for (ParamOp& op : param_ops_) op.pack.run(ctx_.backend);
  ctx_.ordering.comm_after_backend(ctx_.dp);
  for (std::size_t i = 0; i < param_ops_.size(); ++i) {
    ParamOp& op = param_ops_[i];
    requests_[i] = ctx_.dp.all_gather(op.send, op.recv, op.counts, param_type_);
  }
  for (std::size_t i = 0; i < param_ops_.size(); ++i) {
    ctx_.await(requests_[i]);
    param_ops_[i].unpack.run(ctx_.backend);
  }
}

}  // namespace canzona::exec::detail
