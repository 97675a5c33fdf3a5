// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "replicated_matrices.hpp"

namespace canzona::exec::detail {
namespace {

constexpr comm::DataType kFp32 = comm::DataType::kFloat32;

bool gathered(const plan::StepPlan& plan, const plan::MatrixPlan& m) {
  return plan.tp() > 1 && m.sharded();
}

}  // namespace

ReplicatedMatrices::ReplicatedMatrices(StepContext& ctx, optim::MatrixOptimizer& optimizer)
    : ctx_(ctx),
      optimizer_(optimizer),
      direction_bytes_(backend::element_size(optimizer.direction_type())) {
  const auto& list = ctx.plan.replicated_matrices.at(static_cast<std::size_t>(ctx.dp_rank));
  std::int64_t staged = 0;
  std::int64_t gathered_numel = 0;
  std::int64_t shard_numel = 0;
  for (std::size_t k : list) {
    const plan::MatrixPlan& m = ctx.plan.matrices.at(k);
    if (gathered(ctx.plan, m)) {
      gathered_numel += m.full.rows * m.full.cols;
      shard_numel += m.local.rows * m.local.cols;
      continue;
    }
    for (const model::Fragment& f : m.fragments) {
      if (!f.contiguous()) staged += f.numel();
    }
  }
  staged_grads_ = ctx.allocate_floats(staged);
  staged_params_ = ctx.allocate_floats(staged);
  gather_area_ = ctx.allocate_floats(gathered_numel);
  gathered_grads_ = ctx.allocate_floats(gathered_numel);
  gathered_directions_ = ctx.allocate(gathered_numel, optimizer.direction_type());
  direction_shards_ = ctx.allocate(shard_numel, optimizer.direction_type());

  std::int64_t full = 0;
  std::int64_t shard = 0;
  for (std::size_t k : list) {
    const plan::MatrixPlan& m = ctx.plan.matrices[k];
    if (!gathered(ctx.plan, m)) {
      add_local(k);
      continue;
    }
    add_gathered(k, gather_area_.as<float>() + full, gathered_grads_.as<float>() + full,
                 offset(gathered_directions_.data(), full, direction_bytes_),
                 offset(direction_shards_.data(), shard, direction_bytes_));
    full += m.full.rows * m.full.cols;
    shard += m.local.rows * m.local.cols;
  }
  requests_.resize(gathers_.size());
}

optim::StepTask& ReplicatedMatrices::add_task(TrackedBatch& batch, std::size_t matrix,
                                              std::size_t fragment, float* param, float* grad) {
  const model::Fragment& f = ctx_.plan.matrices[matrix].fragments[fragment];
  states_.push_back(optimizer_.make_state(f.shape[0], f.shape[1]));
  ctx_.allocated_bytes += states_.back()->bytes();
  ctx_.record_state(matrix, fragment, states_.back().get());
  optim::StepTask task;
  task.state = states_.back().get();
  task.param = param;
  task.grad = grad;
  task.shape = optim::Shape{f.shape[0], f.shape[1]};
  task.name = f.name;
  batch.tasks.push_back(task);
  batch.hits.push_back(UsageHit{ctx_.usage.fragment_entry(matrix, fragment), f.numel()});
  return batch.tasks.back();
}

void ReplicatedMatrices::add_local(std::size_t k) {
  const plan::MatrixPlan& m = ctx_.plan.matrices[k];
  float* param = ctx_.matrix_param(m);
  float* grad = ctx_.matrix_grad(m);
  const std::vector<ShardBlock> blocks = shard_blocks(m, 1);
  for (std::size_t f = 0; f < m.fragments.size(); ++f) {
    const model::Fragment& fragment = m.fragments[f];
    if (fragment.contiguous()) {
      const std::int64_t first = fragment.rows.front().begin * m.full.cols;
      add_task(local_batch_, k, f, param + first, grad + first);
      continue;
    }
    float* staged_grad = staged_grads_.as<float>() + staged_used_;
    float* staged_param = staged_params_.as<float>() + staged_used_;
    staged_used_ += fragment.numel();
    for (const ShardBlock& b : blocks) {
      if (b.fragment != f) continue;
      local_assemble_.push_back(to_fragment(b, staged_grad, grad));
      local_assemble_.push_back(to_fragment(b, staged_param, param));
      local_write_back_.push_back(to_shard(b, param, staged_param));
    }
    add_task(local_batch_, k, f, staged_param, staged_grad);
  }
}

void ReplicatedMatrices::add_gathered(std::size_t k, float* region, float* fragment_grads,
                                      void* fragment_directions, void* direction_shard) {
  const plan::MatrixPlan& m = ctx_.plan.matrices[k];
  const int tp = ctx_.plan.tp();
  const std::size_t db = direction_bytes_;
  const std::int64_t local = m.local.rows * m.local.cols;
  // The region holds every rank's gradient shard, rank-major; this rank's shard is its own
  // part of the in-place all-gather.
  float* mine = region + ctx_.tp_rank * local;
  pack_.push_back(contiguous(mine, ctx_.matrix_grad(m), local));
  gathers_.push_back(AllGather{
      mine, region,
      std::vector<std::size_t>(static_cast<std::size_t>(tp), static_cast<std::size_t>(local))});
  const std::vector<std::int64_t> starts = fragment_starts(m);
  for (const ShardBlock& b : shard_blocks(m, tp)) {
    assemble_.push_back(
        to_fragment(b, fragment_grads + starts[b.fragment], region + b.shard * local));
    if (b.shard == ctx_.tp_rank) {
      keep_.push_back(
          to_shard(b, direction_shard, offset(fragment_directions, starts[b.fragment], db), db));
    }
  }
  const std::vector<ShardApply> pieces = shard_applies(ctx_, m, direction_shard, db);
  apply_.insert(apply_.end(), pieces.begin(), pieces.end());
  for (std::size_t f = 0; f < m.fragments.size(); ++f) {
    optim::StepTask& task = add_task(gathered_batch_, k, f, nullptr, fragment_grads + starts[f]);
    task.direction = offset(fragment_directions, starts[f], db);
  }
}

void ReplicatedMatrices::step_local() {
  if (local_batch_.tasks.empty()) return;
  const ScopedSlot phase(ctx_.timer, TimerSlot::kCompute);
  local_assemble_.run(ctx_.backend);
  run_batch(optimizer_, local_batch_, ctx_.usage);
  local_write_back_.run(ctx_.backend);
}

void ReplicatedMatrices::step_gathered() {
  if (gathers_.empty()) return;
  {
    const ScopedSlot phase(ctx_.timer, TimerSlot::kTpGather);
    pack_.run(ctx_.backend);
    ctx_.ordering.comm_after_backend(ctx_.tp);
    for (std::size_t i = 0; i < gathers_.size(); ++i) {
      const AllGather& a = gathers_[i];
      requests_[i] = ctx_.tp.all_gather(a.send, a.recv, a.counts, kFp32);
    }
    for (comm::Request& request : requests_) ctx_.await(request);
    assemble_.run(ctx_.backend);
  }
  const ScopedSlot phase(ctx_.timer, TimerSlot::kCompute);
  run_batch(optimizer_, gathered_batch_, ctx_.usage);
  keep_.run(ctx_.backend);
  apply_pieces(optimizer_, ctx_, apply_);
}

}  // namespace canzona::exec::detail
