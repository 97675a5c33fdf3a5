// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The Qwen3 decoder (dense and MoE) in libtorch, one TP rank of it, built from a ModelSpec (the
// catalog or a JSON spec) with Megatron's parameter names, order and TP-local shapes.
#pragma once

#include <canzona/model/parameters.hpp>
#include <canzona/model/spec.hpp>

#include <ATen/ATen.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "canzona/torch_model/memory.hpp"
#include "canzona/torch_model/parameters.hpp"
#include "canzona/torch_model/tensor_parallel.hpp"

namespace canzona::torch_model {

/// Where and how a model instance runs.
struct ModelOptions {
  at::Device device = at::kCPU;
  /// Parameter and compute dtype; unset: bf16 on CUDA, fp32 elsewhere. fp64 is for tests.
  std::optional<at::ScalarType> dtype;
  /// The largest input forward() will see; validated, and used for the memory check.
  RunShape shape;
  /// Bytes this rank may use; 0: what the device has available when the model is built.
  std::int64_t memory_limit_bytes = 0;
};

/// Result of a forward pass.
struct ForwardOutput {
  /// This rank's vocabulary columns of the logits, [b, s, vocab_shard().rows] in the compute
  /// dtype; columns at and beyond vocab_shard().valid are Megatron's vocabulary padding.
  at::Tensor logits;
  /// Mean next-token cross-entropy over the b·s tokens, a scalar (fp32; fp64 for fp64 models),
  /// the same on every TP rank.
  at::Tensor loss;
};

/// One TP rank of a Qwen3 decoder:
///   embedding (vocab-parallel) → L × [x += proj(attn(rope(qk_norm(qkv(norm(x)))))),
///   x += mlp(norm(x))] → final norm → output head (vocab-parallel; the embedding when tied)
///   → vocab-parallel cross-entropy.
/// Attention is causal GQA with QK-norm (RMSNorm over head_dim, per head) before RoPE (theta
/// from the spec, HF / Megatron non-interleaved halves), softmax scale 1/sqrt(head_dim), the
/// fused op where the libtorch version has it (compat.hpp). Dense MLP: SwiGLU
/// fc2(silu(gate) * up) with fc1 = [gate; up]. MoE layers: softmax router over all experts in
/// fp32, top-k, weights renormalised to sum 1 (Qwen3's norm_topk_prob), SwiGLU experts
/// TP-sharded like the dense MLP (expert-TP = TP), no expert parallelism, no shared experts,
/// every token reaching its experts (no capacity drop); the load-balancing auxiliary loss is not
/// added to the loss. RMSNorm computes in fp32 and multiplies the weight after casting back
/// (HF's Qwen3RMSNorm). No biases, no dropout.
///
/// TP (Megatron, no sequence parallelism): linear_qkv, linear_fc1 and expert fc1 are
/// column-parallel (input through copy_to_tensor_parallel), linear_proj, linear_fc2 and expert
/// fc2 row-parallel (output through reduce_from_tensor_parallel); the router is replicated and
/// its weights reach the partial expert outputs through copy_to_tensor_parallel, so the one
/// all-reduce per MoE layer also completes the router's gradient. The QK-norm weights, which see
/// only the rank's heads, enter through copy_to_tensor_parallel as well. Replicated parameters
/// (norms, router) get identical, complete gradients on every TP rank.
///
/// Parameters: parameters()[i] is param_specs()[i] (model::parameters in the Megatron layout)
/// with shape layout::tp_local_shape, a leaf that requires grad; after backward its grad() is
/// this rank's gradient. The model holds the TP group its autograd nodes refer to: it must
/// outlive every graph built by forward() (it is neither copyable nor movable).
class Qwen3Model {
 public:
  /// Validates the spec at tp = group.size() (ConfigError: tp must divide heads, KV heads and
  /// the FFN sizes), the options (run shape; a CPU device for an MPI group, a CUDA device for an
  /// NCCL one) and the memory estimate against what the device has, all before allocating; on
  /// a group of more than one rank the verdict is agreed by an all-reduce (collective over the
  /// group), so a rank that fails makes every rank throw. Then allocates uninitialised
  /// parameters (the meta device allocates nothing and skips the memory check and the
  /// agreement: for shape checks of large models). `group`'s communicator must outlive the model.
  Qwen3Model(model::ModelSpec spec, TensorParallelGroup group, ModelOptions options = {});
  Qwen3Model(const Qwen3Model&) = delete;
  Qwen3Model& operator=(const Qwen3Model&) = delete;
  Qwen3Model(Qwen3Model&&) = delete;
  Qwen3Model& operator=(Qwen3Model&&) = delete;

  const model::ModelSpec& spec() const noexcept { return spec_; }
  const TensorParallelGroup& group() const noexcept { return group_; }
  at::Device device() const noexcept { return device_; }
  at::ScalarType dtype() const noexcept { return dtype_; }
  const RunShape& run_shape() const noexcept { return shape_; }
  /// This rank's rows of the padded vocabulary.
  const VocabShard& vocab_shard() const noexcept { return vocab_; }

  /// Megatron-layout parameter list, model order, full shapes.
  const std::vector<model::ParamSpec>& param_specs() const noexcept { return specs_; }
  /// TP-local parameter tensors, same order.
  const std::vector<at::Tensor>& parameters() const noexcept { return params_; }
  /// Sets every parameter to this rank's shard of full_parameter(options) (no autograd).
  void init_parameters(const InitOptions& options);
  /// Moves the parameters into caller-owned storage (e.g. views into a ZeRO-1 buffer): copies
  /// the current values into `storage[i]` and makes it parameter i, a leaf that requires grad
  /// and shares `storage[i]`'s memory. Each must have parameter i's shape, the model's device and
  /// its compute dtype (ConfigError otherwise). Gradients the parameters had are dropped.
  void bind_parameters(const std::vector<at::Tensor>& storage);

  /// tokens and labels: [b, s] int64 on the model's device, ids in [0, vocab_size), the same on
  /// every TP rank; labels[i, j] is the token that should follow tokens[i, :j+1]. ConfigError for
  /// an empty batch or sequence, mismatched shapes, b or s above run_shape(), or ids outside the
  /// vocabulary. Collective over the group (forward and backward).
  ForwardOutput forward(const at::Tensor& tokens, const at::Tensor& labels) const;

 private:
  struct Layer {
    std::size_t proj = 0, attention_norm = 0, qkv = 0, q_norm = 0, k_norm = 0, mlp_norm = 0;
    std::size_t fc1 = 0, fc2 = 0, router = 0;  ///< fc1 / fc2 dense only, router MoE only
    std::vector<std::size_t> expert_fc1, expert_fc2;
  };

  void check_inputs(const at::Tensor& tokens, const at::Tensor& labels) const;
  at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight) const;
  at::Tensor rms_norm(const at::Tensor& x, std::size_t weight) const;
  at::Tensor attention(const at::Tensor& x, const Layer& layer, const at::Tensor& cos,
                       const at::Tensor& sin) const;
  at::Tensor dense_mlp(const at::Tensor& x, const Layer& layer) const;
  at::Tensor moe_mlp(const at::Tensor& x, const Layer& layer) const;
  at::Tensor swiglu(const at::Tensor& x, std::size_t fc1, std::size_t fc2) const;

  model::ModelSpec spec_;
  TensorParallelGroup group_;
  at::Device device_;
  at::ScalarType dtype_;
  RunShape shape_;
  VocabShard vocab_;
  std::vector<model::ParamSpec> specs_;
  std::vector<at::Tensor> params_;
  std::vector<Layer> layers_;
  std::size_t embedding_ = 0;
  std::size_t final_norm_ = 0;
  std::size_t head_ = 0;  ///< the embedding when tied
};

}  // namespace canzona::torch_model
