// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Matrices every TP rank of this DP rank's group steps itself (internal): the unsharded ones
// (replicated over TP, or tp == 1) locally with no communication, and the TP-SC ones after one
// all-gather each of every rank's [grad shard, param shard], keeping only this rank's shard.
#pragma once

#include <canzona/comm/request.hpp>
#include <canzona/optim/matrix_optimizer.hpp>

#include <memory>
#include <vector>

#include "copies.hpp"
#include "step_context.hpp"
#include "usage_counters.hpp"

namespace canzona::exec::detail {

class ReplicatedMatrices {
 public:
  /// Resolves plan.replicated_matrices[dp_rank]. A fragment that is one row range of an
  /// unsharded matrix is stepped in place; other fragments are staged.
  ReplicatedMatrices(StepContext& ctx, optim::MatrixOptimizer& optimizer);

  /// Steps the unsharded matrices (timed as compute).
  void step_local();
  /// TP-SC: packs and issues one all-gather per matrix (list order), completes them, assembles,
  /// steps every fragment and writes this rank's shard back.
  void step_gathered();

  std::vector<const TrackedBatch*> batches() const { return {&local_batch_, &gathered_batch_}; }

 private:
  struct AllGather {
    const float* send = nullptr;  ///< this rank's pair inside recv (in place)
    float* recv = nullptr;
    std::vector<std::size_t> counts;
  };

  void add_local(std::size_t matrix);
  void add_gathered(std::size_t matrix, float* region, float* fragment_grads,
                    float* fragment_params);
  void add_task(TrackedBatch& batch, std::size_t matrix, std::size_t fragment, float* param,
                float* grad);

  StepContext& ctx_;
  optim::MatrixOptimizer& optimizer_;
  std::vector<std::unique_ptr<optim::MatrixState>> states_;

  TrackedBatch local_batch_;
  std::vector<Copy> local_assemble_;
  std::vector<Copy> local_write_back_;
  backend::Buffer staged_grads_;
  backend::Buffer staged_params_;
  std::int64_t staged_used_ = 0;

  TrackedBatch gathered_batch_;
  std::vector<AllGather> gathers_;
  std::vector<comm::Request> requests_;
  std::vector<Copy> pack_;
  std::vector<Copy> assemble_;
  std::vector<Copy> write_back_;
  backend::Buffer gather_area_;
  backend::Buffer gathered_grads_;
  backend::Buffer gathered_params_;
};

}  // namespace canzona::exec::detail
