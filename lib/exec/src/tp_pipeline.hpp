// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The TP micro-groups of one DP rank's TP group (internal): each host gathers the fp32 gradient
// shards of the matrices it hosts, computes their update directions, and scatters the direction
// shards back; every TP rank applies its shard, p ← p·(1 − lr·wd) − lr·s·u, to its own fp32
// main parameters (nothing but gradients and directions travel).
//
// Issue order on the TP communicator: pipelined, G0, then for every group g: G(g+1) if it
// exists, S(g) (the gather of g + 1 is in flight while g computes and the scatter of g overlaps
// the compute of g + 1); serial (Megatron-Canzona), G(g), S(g) for each g in turn, each waited
// for before the next step.
//
// Payloads. kAllToAll: G is one all-to-all in which rank t sends host j the gradient shard of
// each matrix of slot j in order; S is one all-to-all in which host t sends rank j, for each
// matrix of slot t in order, j's direction shard. kGatherScatter: G is one gather per matrix
// (slot 0's matrices in order, then slot 1's, ...) to its host, S one scatter per matrix in the
// same order. Direction shards are laid out like the parameter shard, so each rank applies them
// block by block (one block per fragment a shard touches, each fragment with its own scale).
//
// Staging. A ring of up to three staging sets (sized for the largest group) lets G(g + 1) fill
// one set while g computes from another and S(g - 1) drains a third; S(g - 2) is completed (and
// applied) before its set is packed again. One fragment area (gradients and directions of the
// host's matrices of one group) serves every group, since only one group computes at a time.
#pragma once

#include <canzona/comm/request.hpp>
#include <canzona/optim/matrix_optimizer.hpp>

#include <cstddef>
#include <memory>
#include <vector>

#include "copies.hpp"
#include "step_context.hpp"
#include "usage_counters.hpp"

namespace canzona::exec::detail {

/// One contiguous piece of a direction applied to this rank's main parameters.
struct ShardApply {
  float* param = nullptr;
  const void* direction = nullptr;
  std::int64_t count = 0;
  optim::Shape fragment;  ///< the shape the optimizer stepped (its rule's scale)
};

/// The pieces of `direction_shard` (this TP rank's shard of matrix m's direction, laid out like
/// its parameter shard, `direction_bytes` per element) to apply to its main parameters: one per
/// fragment the shard touches.
std::vector<ShardApply> shard_applies(const StepContext& ctx, const plan::MatrixPlan& m,
                                      const void* direction_shard, std::size_t direction_bytes);

/// Applies every piece as step number ctx.step.
void apply_pieces(optim::MatrixOptimizer& optimizer, const StepContext& ctx,
                  const std::vector<ShardApply>& pieces);

class TpPipeline {
 public:
  /// Resolves every copy, collective and apply of plan.micro_groups[dp_rank] for this TP rank
  /// and makes the states of the fragments it hosts. Empty when tp == 1 or there are no groups.
  TpPipeline(StepContext& ctx, optim::MatrixOptimizer& optimizer);

  /// Pipelined: packs and issues G0 (it travels while the AdamW update runs). Serial: nothing.
  void start();
  /// Runs every group: gather, assemble, compute the directions, scatter (and apply).
  void run();
  /// Completes the scatters still in flight and applies their direction shards.
  void finish();

  /// The step_batch calls (one per group), for workspace reservation.
  std::vector<const TrackedBatch*> batches() const;

 private:
  /// One all-to-all-v: counts and displacements in elements.
  struct AllToAll {
    const void* send = nullptr;
    void* recv = nullptr;
    std::vector<std::size_t> send_counts, send_displs, recv_counts, recv_displs;
  };
  /// One gather or scatter of one matrix rooted at its host. `recv` (gather) and `send`
  /// (scatter) are null off the root.
  struct Rooted {
    const void* send = nullptr;
    void* recv = nullptr;
    std::size_t count = 0;  ///< this rank's part
    std::vector<std::size_t> counts;
    int root = 0;
  };
  struct Group {
    CopyList pack;  ///< this rank's gradient shards → send area
    AllToAll gather;
    std::vector<Rooted> gathers;
    CopyList assemble;  ///< received shards → fragments of the hosted matrices
    TrackedBatch batch;
    CopyList pack_scatter;  ///< directions of the hosted fragments → per-rank shards
    AllToAll scatter;
    std::vector<Rooted> scatters;
    std::vector<ShardApply> apply;  ///< received direction shards → this rank's main params
    std::vector<comm::Request> gather_requests;
    std::vector<comm::Request> scatter_requests;
    bool scatter_pending = false;
  };
  struct StagingSet {
    backend::Buffer shards;  ///< G: gradient shards out; S: direction shards in
    backend::Buffer hosted;  ///< G: gathered gradients in; S: direction shards out
  };

  void build_group(std::size_t g, const plan::MicroGroupPlan& plan_group, StagingSet& set);
  void issue_gather(std::size_t g);
  void complete_gather(std::size_t g);
  void compute(std::size_t g);
  void issue_scatter(std::size_t g);
  void complete_scatter(std::size_t g);

  StepContext& ctx_;
  optim::MatrixOptimizer& optimizer_;
  bool all_to_all_ = true;
  bool serial_ = false;
  comm::DataType direction_type_ = comm::DataType::kFloat32;
  std::size_t direction_bytes_ = sizeof(float);
  std::vector<StagingSet> sets_;
  backend::Buffer fragment_grads_;
  backend::Buffer fragment_directions_;
  std::vector<std::unique_ptr<optim::MatrixState>> states_;
  std::vector<Group> groups_;
};

}  // namespace canzona::exec::detail
