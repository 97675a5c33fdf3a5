// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron tensor parallelism over the project's communicators: the TP group, the region
// functions around column- and row-parallel layers (mappings.py), the vocab-parallel embedding
// and the vocab-parallel cross-entropy, as custom autograd functions.
#pragma once

#include <canzona/comm/communicator.hpp>
#include <canzona/comm/request.hpp>
#include <canzona/model/spec.hpp>

#include <ATen/ATen.h>

#include <cstdint>
#include <deque>
#include <memory>

namespace canzona::torch_model {

/// The tensor-parallel group a model shard runs in. With an MPI communicator tensors live on
/// the CPU and every collective blocks until done; with an NCCL communicator they live on its
/// CUDA device and collectives are ordered on the current torch CUDA stream (the communicator's
/// stream waits for it, it waits for the collective: no host synchronisation), which needs a
/// libtorch with CUDA. Their requests stay in flight in the group, shared by its copies, until
/// a later call sees them done or the last copy is destroyed (which waits for them). A
/// default-constructed group is one rank: every collective is the identity and no
/// communicator is involved.
///
/// Autograd nodes created by the functions below refer to the group by address, so the group
/// (and its communicator) must outlive every graph built with it; Qwen3Model owns its group.
class TensorParallelGroup {
 public:
  TensorParallelGroup() = default;
  explicit TensorParallelGroup(comm::Communicator& comm)
      : comm_(&comm), in_flight_(std::make_shared<std::deque<comm::Request>>()) {}

  int rank() const noexcept { return comm_ == nullptr ? 0 : comm_->rank(); }
  int size() const noexcept { return comm_ == nullptr ? 1 : comm_->size(); }
  /// Null for a group of one rank.
  comm::Communicator* communicator() const noexcept { return comm_; }

  /// Element-wise sum (or max, min) of `input` over the group into a new contiguous tensor;
  /// `input` is the identity for one rank. Not differentiable. ConfigError when the tensor's
  /// device does not match the communicator's memory (CPU for MPI, CUDA for NCCL) or the
  /// backend cannot reduce its dtype with `op` (MPI reduces bf16 only as a sum).
  at::Tensor all_reduce(const at::Tensor& input, comm::ReduceOp op = comm::ReduceOp::kSum) const;

 private:
  comm::Communicator* comm_ = nullptr;
  std::shared_ptr<std::deque<comm::Request>> in_flight_;
};

/// Identity forward, all-reduce (sum) of the gradient backward: the input of a column-parallel
/// layer, whose ranks each produce a partial gradient of it (Megatron's
/// copy_to_tensor_model_parallel_region).
at::Tensor copy_to_tensor_parallel(const at::Tensor& input, const TensorParallelGroup& group);

/// All-reduce (sum) forward, identity backward: the output of a row-parallel layer, which every
/// rank holds a partial sum of (reduce_from_tensor_model_parallel_region).
at::Tensor reduce_from_tensor_parallel(const at::Tensor& input, const TensorParallelGroup& group);

/// The rows of the Megatron-padded vocabulary one TP rank holds: [start, start + rows), of
/// which the first `valid` are real tokens (the rest is padding up to a multiple of 128·tp).
struct VocabShard {
  std::int64_t start = 0;
  std::int64_t rows = 0;
  std::int64_t valid = 0;
};

/// Rank `rank`'s shard of `model`'s vocabulary at `tp` (layout::padded_vocab_size).
VocabShard vocab_shard(const model::ModelSpec& model, int tp, int rank);

/// VocabParallelEmbedding: tokens [b, s] (int64, global ids) → [b, s, h]. Each rank looks up
/// the tokens in its shard of `weight` ([rows, h]), zeroes the others, and the ranks' results
/// are summed (reduce_from_tensor_parallel). The gradient reaches only the rows looked up.
at::Tensor vocab_parallel_embedding(const at::Tensor& tokens, const at::Tensor& weight,
                                    const VocabShard& shard, const TensorParallelGroup& group);

/// Per-token cross-entropy over a vocabulary sharded across the group (Megatron's
/// _VocabParallelCrossEntropy): logits [n, shard.rows] (this rank's columns), labels [n]
/// (int64, global ids) → loss [n]. Only the first shard.valid columns are vocabulary: padding
/// columns are left out of the softmax and get a zero gradient, so the loss equals the
/// unpadded model's. Computed in fp32 (fp64 for fp64 logits); forward issues one max and one
/// sum all-reduce, backward none.
at::Tensor vocab_parallel_cross_entropy(const at::Tensor& logits, const at::Tensor& labels,
                                        const VocabShard& shard, const TensorParallelGroup& group);

}  // namespace canzona::torch_model
