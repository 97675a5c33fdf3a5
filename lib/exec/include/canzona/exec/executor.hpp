// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The executor: runs one optimizer step of a StepPlan on real ranks (MPI or NCCL communicators,
// cpu or cuda backend): DP gradient sync, the element-wise AdamW update, the TP micro-group
// pipeline (gather → compute → scatter, next gather in flight), TP-SC and local matrix steps,
// and the DP parameter sync, with per-rank phase timers and an optimizer-usage record.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "canzona/exec/comm_ordering.hpp"
#include "canzona/exec/step_timer.hpp"
#include "canzona/exec/usage.hpp"

namespace canzona::exec {

namespace detail {
struct StepContext;
class MainParams;
class UsageCounters;
class DpSync;
class AdamWUpdate;
class TpPipeline;
class ReplicatedMatrices;
}  // namespace detail

/// Optional collaborators of an Executor; null members get the defaults for the backend and
/// communicators: cuda + NCCL the stream ordering and the CUDA-event timer, anything else
/// (cpu + MPI) the host ordering and the steady-clock timer (see uses_device_streams).
struct ExecutorOptions {
  std::unique_ptr<StepTimer> timer;        ///< null: make_default_timer(backend, dp, tp)
  std::unique_ptr<CommOrdering> ordering;  ///< null: make_default_ordering(backend, dp, tp)
};

/// One contiguous range of a buffer this rank steps, with its fp32 main parameters.
struct MainRange {
  std::size_t buffer = 0;
  std::int64_t begin = 0;  ///< buffer elements [begin, end)
  std::int64_t end = 0;
  const float* data = nullptr;  ///< backend memory, end − begin fp32 values
};

/// Runs a StepPlan on this rank, global rank = dp_rank · tp + tp_rank (Megatron order), with
/// Megatron's mixed precision (plan.options.precision).
///
/// Buffers: for every layout buffer the executor owns a TP-local model parameter buffer (of
/// param_type(): bf16, or fp32) and a gradient buffer (of grad_type(): fp32, or bf16), each of
/// `buffer.total` elements in backend memory (zero-filled), each parameter at its entry's
/// [start, end), flattened row-major in its TP-local shape: a column-parallel matrix holds row
/// block tp_rank of the TP-gathered matrix, a row-parallel one column block tp_rank, a
/// replicated one the whole tensor. The caller writes model parameters once and gradients
/// before every step() (e.g. backend.upload into params(b) / grads(b)); padding stays zero.
/// For what this rank steps (main_params()) it keeps fp32 main parameters, built from the model
/// parameters before the first step (and again after reload_main_params()); with fp32 model
/// parameters they are the model parameters themselves.
///
/// One step():
///  1. grad sync over DP, buffer by buffer, bucket by bucket, in the gradient type:
///     reduce-scatter on the bucket's cuts or all-reduce of the bucket (sum), then × 1/dp on
///     what this rank keeps; the fp32 main gradients of what it steps are taken from there;
///  2. AdamW on the main parameters this rank steps of every element-wise buffer (its ZeRO-1
///     slice, its owned entries under layer-wise, everything under DP-SC);
///  3. matrices of this DP rank (dp_owner == dp_rank, or -1 for DP-SC): the micro-groups on
///     the TP group (hosts gather fp32 gradient shards, assemble each fragment from its row
///     ranges of the gathered matrix, compute its direction, scatter the direction shards;
///     every TP rank applies its shard to its main parameters), TP-SC (all-gather of the
///     gradient, every rank computes the direction and applies its shard), and unsharded
///     matrices stepped in place;
///  4. model parameters ← main parameters (rounded to bf16), then param sync over DP in the
///     model type: all-gather on the cuts, one all-gather-v of owned entries per group of
///     buffers (layer-wise), or nothing (DP-SC).
/// A group of one rank issues no collective. The DP and TP traces of one step equal
/// plan::rank_collectives(plan, dp_rank, tp_rank) (see trace_check.hpp).
///
/// Allocation happens in the constructor only; step() enqueues backend work and collectives.
/// With the host ordering it returns once the parameter sync has completed on the host; with
/// the stream ordering (cuda + NCCL) it returns once everything is enqueued, with the backend's
/// stream ordered after the parameter sync, so backend.download() / synchronize() see the
/// step's result and the next step's uploads are ordered after it. The destructor synchronises
/// the backend.
class Executor {
 public:
  /// Collective over `world` (all dp·tp ranks must construct together). Checks, in this order
  /// and without any rank waiting forever: that every rank's plan_hash and optimizer
  /// hyper-parameters agree (ConfigError naming both hashes otherwise), that world, dp and tp
  /// match the plan's (dp, tp) and the Megatron rank order (ConfigError), that the plan holds
  /// its invariants (plan::check_plan, plus the executor's own: canzona::Error), and that the
  /// backend's memory is where the communicators want buffers, on the same device (ConfigError). A
  /// rank whose own check failed rethrows its error; every other rank throws ConfigError naming
  /// that rank. Then allocates buffers, optimizer states and workspaces. `world`, `dp`, `tp` and
  /// `backend` must outlive the executor; `dp` and `tp` are the groups of
  /// comm::split_dp_tp(world, plan.tp()).
  Executor(plan::StepPlan plan, comm::Communicator& world, comm::Communicator& dp,
           comm::Communicator& tp, backend::Backend& backend, ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;
  Executor(Executor&&) = delete;
  Executor& operator=(Executor&&) = delete;

  /// One optimizer step (see the class comment). Collective over world.
  void step();

  /// Starts step 1 early, overlapping whatever the caller computes next (Megatron's
  /// --overlap-grad-reduce: backward reports each bucket as soon as its last gradient is in):
  /// bucket `bucket` of layout buffer `buffer` holds this rank's final gradients in
  /// grads(buffer). Step 1's collectives are issued in step 1's order (buffer by buffer, bucket by
  /// bucket), each once its bucket and every bucket before it are ready, so every rank issues
  /// the same sequence whatever order its buckets complete in; each call also tests those in
  /// flight (MPI progresses them only inside MPI calls). The next step() or sync_grads() issues
  /// the rest and completes them all; the DP trace is unchanged. The gradients must be visible
  /// to the backend (on a device: written by work the backend's stream is ordered after).
  /// Collective over DP in effect (the ranks' collectives pair up in order). ConfigError for a
  /// bucket that does not exist, canzona::Error for one marked twice in the same sync.
  void grad_bucket_ready(std::size_t buffer, std::size_t bucket);
  /// Step 1 alone (what grad_bucket_ready left, then completion and × 1/dp), for an iteration
  /// whose optimizer step is a no-op and for checking the synced gradients: grads(b) then holds
  /// what step 2 would read. Timed as a step of one phase (last_step_times()); steps() does not
  /// count it. Collective over DP.
  void sync_grads();

  const plan::StepPlan& plan() const noexcept { return plan_; }
  int dp_rank() const noexcept { return dp_rank_; }
  int tp_rank() const noexcept { return tp_rank_; }
  /// Steps taken so far.
  int steps() const noexcept { return steps_; }

  /// Elements of layout buffer `buffer` (its `total`).
  std::int64_t buffer_elements(std::size_t buffer) const;
  /// The TP-local model parameter / gradient buffer `buffer` in backend memory, owned by the
  /// executor, of param_type() / grad_type() elements.
  void* params(std::size_t buffer) const;
  void* grads(std::size_t buffer) const;
  backend::ElementType param_type() const noexcept;
  backend::ElementType grad_type() const noexcept;

  /// The fp32 main parameters of everything this rank steps, buffer by buffer in buffer order.
  std::vector<MainRange> main_params() const;
  /// Makes the next step() rebuild the main parameters from the model parameters (after the
  /// caller wrote new ones into params()).
  void reload_main_params() noexcept { main_stale_ = true; }
  /// The optimizer state this rank keeps for fragment `fragment` of plan matrix `matrix`
  /// (hosted, replicated or stepped in place here), or null.
  const optim::MatrixState* state(std::size_t matrix, std::size_t fragment) const;

  /// Phase times of the last step (StepTimer::last_step; may synchronise a device timer).
  StepTimes last_step_times();
  /// Which optimizer ran on what on this rank: one entry per matrix fragment of every matrix
  /// in the plan (model order), then one per AdamW parameter (layout param order).
  const std::vector<OptimizerUsage>& usage() const;

  /// Backend bytes the executor allocated (buffers, staging, optimizer states, workspaces).
  std::size_t allocated_bytes() const noexcept { return allocated_bytes_; }

 private:
  plan::StepPlan plan_;
  backend::Backend& backend_;
  int dp_rank_ = 0;
  int tp_rank_ = 0;
  int steps_ = 0;
  bool main_stale_ = true;
  std::size_t allocated_bytes_ = 0;
  std::unique_ptr<StepTimer> timer_;
  std::unique_ptr<CommOrdering> ordering_;
  std::vector<backend::Buffer> params_;
  std::vector<backend::Buffer> grads_;
  std::unique_ptr<detail::UsageCounters> usage_;
  std::unique_ptr<detail::StepContext> context_;
  std::unique_ptr<detail::MainParams> main_;
  std::unique_ptr<optim::MatrixOptimizer> matrix_optimizer_;
  std::unique_ptr<optim::MatrixOptimizer> adamw_optimizer_;
  std::unique_ptr<detail::DpSync> dp_sync_;
  std::unique_ptr<detail::AdamWUpdate> adamw_;
  std::unique_ptr<detail::TpPipeline> pipeline_;
  std::unique_ptr<detail::ReplicatedMatrices> replicated_;
};

}  // namespace canzona::exec
