// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Matrices every TP rank of this DP rank's group steps itself (internal): the unsharded ones
// (replicated over TP, or tp == 1) in place on the fp32 main parameters with no communication,
// and the TP-SC ones after one all-gather each of every rank's fp32 gradient shard: each rank
// computes the whole direction and applies only its own shard.
#pragma once

#include <canzona/comm/request.hpp>
#include <canzona/optim/matrix_optimizer.hpp>

#include <memory>
#include <vector>

#include "copies.hpp"
#include "step_context.hpp"
#include "tp_pipeline.hpp"
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
  /// computes every fragment's direction and applies this rank's shard of it.
  void step_gathered();

  std::vector<const TrackedBatch*> batches() const { return {&local_batch_, &gathered_batch_}; }

 private:
  struct AllGather {
    const void* send = nullptr;  ///< this rank's shard inside recv (in place)
    void* recv = nullptr;
    std::vector<std::size_t> counts;
  };

  void add_local(std::size_t matrix);
  void add_gathered(std::size_t matrix, float* region, float* fragment_grads,
                    void* fragment_directions, void* direction_shard);
  optim::StepTask& add_task(TrackedBatch& batch, std::size_t matrix, std::size_t fragment,
                            float* param, float* grad);

  StepContext& ctx_;
  optim::MatrixOptimizer& optimizer_;
  std::size_t direction_bytes_ = sizeof(float);
  std::vector<std::unique_ptr<optim::MatrixState>> states_;

  TrackedBatch local_batch_;
  CopyList local_assemble_;
  CopyList local_write_back_;
  backend::Buffer staged_grads_;
  backend::Buffer staged_params_;
  std::int64_t staged_used_ = 0;

  TrackedBatch gathered_batch_;
  std::vector<AllGather> gathers_;
  std::vector<comm::Request> requests_;
  CopyList pack_;
  CopyList assemble_;
  CopyList keep_;  ///< this rank's blocks of each direction, in its shard's layout
  std::vector<ShardApply> apply_;
  backend::Buffer gather_area_;
  backend::Buffer gathered_grads_;
  backend::Buffer gathered_directions_;
  backend::Buffer direction_shards_;
};

}  // namespace canzona::exec::detail
