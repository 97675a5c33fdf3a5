// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The DP side of a step (internal): gradient sync before the updates (in the gradient type) and
// parameter sync after (in the model parameter type), over the DP communicator, with every
// argument resolved at construction.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/request.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "copies.hpp"
#include "step_context.hpp"

namespace canzona::exec::detail {

class DpSync {
 public:
  /// Resolves every collective of plan.buffers for this DP rank. Nothing at all when dp == 1.
  explicit DpSync(StepContext& ctx);

  /// Marks bucket `bucket` of buffer `buffer` ready for its gradient collective ahead of
  /// grad_sync() and issues, in grad_sync()'s order, every collective not yet issued whose
  /// bucket and predecessors are all ready; then tests the ones in flight (MPI progresses
  /// non-blocking collectives only inside MPI calls). Error for a bucket marked twice.
  void grad_bucket_ready(std::size_t buffer, std::size_t bucket);

  /// Issues the reduce-scatters / all-reduces of every bucket of every buffer (layout order) that
  /// grad_bucket_ready did not issue yet, then completes them in order, each followed by × 1/dp
  /// on the elements this rank keeps (its slice after a reduce-scatter, the bucket after an
  /// all-reduce), in the gradient type. The next grad_bucket_ready starts a new sync.
  void grad_sync();

  /// Issues the parameter all-gathers (every bucket on its cuts, then one all-gather-v per
  /// group of buffers whose owned entries travel together, plan::owned_sync_groups), then
  /// completes them.
  void param_sync();

 private:
  struct GradOp {
    bool reduce_scatter = true;
    void* bucket = nullptr;           ///< grads + bucket.start
    std::vector<std::size_t> counts;  ///< reduce-scatter: the cut slices
    std::size_t count = 0;            ///< all-reduce: the bucket size
    void* keep = nullptr;             ///< what this rank keeps and averages
    std::int64_t keep_count = 0;
  };
  struct ParamOp {
    void* recv = nullptr;  ///< bucket start, or the owned-entries staging buffer
    void* send = nullptr;  ///< this rank's part of recv (in place)
    std::vector<std::size_t> counts;
    CopyList pack;    ///< owned entries → staging (kAllGatherOwned)
    CopyList unpack;  ///< other ranks' entries → parameters (kAllGatherOwned)
  };

  void add_grad_ops(const plan::BufferPlan& bp);
  void issue_grad_op(std::size_t i);
  void add_bucket_param_ops(const plan::BufferPlan& bp);
  void add_owned_param_op(const std::vector<std::size_t>& group);

  StepContext& ctx_;
  comm::DataType grad_type_;
  comm::DataType param_type_;
  float inverse_dp_ = 1.0f;
  std::vector<GradOp> grad_ops_;
  std::vector<std::size_t> first_grad_op_;  ///< per layout buffer: its first bucket's op
  std::vector<bool> ready_;                 ///< per grad op: marked by grad_bucket_ready
  std::size_t issued_ = 0;                  ///< grad ops [0, issued_) are in flight or done
  std::vector<ParamOp> param_ops_;
  std::vector<backend::Buffer> staging_;
  std::vector<comm::Request> requests_;
};

}  // namespace canzona::exec::detail
