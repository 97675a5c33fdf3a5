// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The TP micro-group pipeline of one DP rank's TP group (internal). Issue order on the TP
// communicator: G0, then for every group g: G(g+1) if it exists, S(g); so the gather of g + 1 is
// in flight while g computes and the scatter of g overlaps the compute of g + 1.
//
// Payloads. kAllToAll: G is one all-to-all in which rank t sends host j, for each matrix of
// slot j in order, [grad shard, param shard]; S is one all-to-all in which host t sends rank j,
// for each matrix of slot t in order, j's updated param shard. kGatherScatter: G is one gather
// per matrix (slot 0's matrices in order, then slot 1's, ...) of [grad shard, param shard] to
// its host, S one scatter per matrix in the same order, straight into the parameter buffer.
//
// Staging. A ring of up to three staging sets (sized for the largest group) lets G(g + 1) fill
// one set while g computes from another and S(g - 1) drains a third; S(g - 2) is completed
// before its set is packed again. One fragment area (grads and params of the host's matrices of
// one group) serves every group, since only one group computes at a time.
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

class TpPipeline {
 public:
  /// Resolves every copy and collective of plan.micro_groups[dp_rank] for this TP rank and
  /// makes the states of the fragments it hosts. Empty when tp == 1 or there are no groups.
  TpPipeline(StepContext& ctx, optim::MatrixOptimizer& optimizer);

  /// Packs and issues G0 (lets it travel while the AdamW update runs).
  void start();
  /// Runs every group: G(g + 1), complete G(g), assemble, step, issue S(g).
  void run();
  /// Completes the scatters still in flight and writes their shards back.
  void finish();

  /// The step_batch calls (one per group), for workspace reservation.
  std::vector<const TrackedBatch*> batches() const;

 private:
  /// One all-to-all-v: counts and displacements in elements.
  struct AllToAll {
    const float* send = nullptr;
    float* recv = nullptr;
    std::vector<std::size_t> send_counts, send_displs, recv_counts, recv_displs;
  };
  /// One gather or scatter of one matrix rooted at its host. `send` (scatter) and `recv`
  /// (gather) are null off the root.
  struct Rooted {
    const float* send = nullptr;
    float* recv = nullptr;
    std::size_t count = 0;  ///< this rank's part
    std::vector<std::size_t> counts;
    int root = 0;
  };
  struct Group {
    std::vector<Copy> pack;  ///< this rank's [grad, param] shards → send area
    AllToAll gather;
    std::vector<Rooted> gathers;
    std::vector<Copy> assemble;  ///< received shards → fragments of the hosted matrices
    TrackedBatch batch;
    std::vector<Copy> pack_scatter;  ///< updated fragments → per-rank param shards
    AllToAll scatter;
    std::vector<Rooted> scatters;
    std::vector<Copy> unpack;  ///< received param shards → parameter buffer (all-to-all)
    std::vector<comm::Request> gather_requests;
    std::vector<comm::Request> scatter_requests;
    bool scatter_pending = false;
  };
  struct StagingSet {
    backend::Buffer send;
    backend::Buffer recv;
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
  std::vector<StagingSet> sets_;
  backend::Buffer fragment_grads_;
  backend::Buffer fragment_params_;
  std::vector<std::unique_ptr<optim::MatrixState>> states_;
  std::vector<Group> groups_;
};

}  // namespace canzona::exec::detail
