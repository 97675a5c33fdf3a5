// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Every parameter tensor of a model in registration (model) order, in the HF or the Megatron
// (Transformer Engine spec) layout, with its role, TP partition dim and optimizer class.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canzona/model/spec.hpp"

namespace canzona::model {

/// What a tensor is. Decides the optimizer: see ParamSpec::uses_matrix_optimizer().
enum class ParamRole {
  kEmbedding,   ///< input word embedding [V, h]
  kOutputHead,  ///< untied lm_head / output_layer [V, h]
  kNorm,        ///< any RMSNorm weight (input, post-attention, q/k norm, final)
  kAttention,   ///< q/k/v/o projections, or Megatron's fused linear_qkv and linear_proj
  kMlp,         ///< dense SwiGLU gate/up/down, or Megatron's fused linear_fc1 and linear_fc2
  kRouter,      ///< MoE router [E, h]
  kExpert,      ///< one MoE expert's gate/up/down (or fused fc1 / fc2)
};

/// Naming and fusion convention of the parameter list.
enum class ParamLayout {
  kHuggingFace,  ///< separate q/k/v and gate/up tensors, HF names
  kMegatron,     ///< Megatron-Core TE spec: fused linear_qkv and linear_fc1, fused input norms
};

/// Which rows a fused Megatron weight concatenates; the split functions in split.hpp act on it.
enum class FusedKind {
  kNone,      ///< not fused
  kQkv,       ///< linear_qkv: rows grouped per KV group, [K, (H/K + 2)·d, h]
  kGatedFc1,  ///< linear_fc1 (dense or one expert): [gate; up], each [I, h]
};

/// Tensor-parallel partition dim of a parameter.
inline constexpr int kReplicated = -1;
inline constexpr int kColumnParallel = 0;  ///< split along dim 0 (output rows)
inline constexpr int kRowParallel = 1;     ///< split along dim 1 (input columns)

/// One parameter tensor with its FULL (TP=1, unpadded vocab) shape, [out, in] for linears.
struct ParamSpec {
  std::string name;
  std::vector<std::int64_t> shape;
  ParamRole role = ParamRole::kNorm;
  /// kReplicated (-1), kColumnParallel (0) or kRowParallel (1), as in Megatron's
  /// ColumnParallelLinear / RowParallelLinear / VocabParallelEmbedding.
  int tp_dim = kReplicated;
  int layer = -1;   ///< decoder layer, -1 outside the layers
  int expert = -1;  ///< expert index for kExpert tensors, -1 otherwise
  FusedKind fused = FusedKind::kNone;

  /// Number of elements of the full tensor.
  std::int64_t numel() const;
  bool is_matrix() const { return shape.size() == 2; }
  /// Matrix optimizer (Muon / Shampoo / SOAP) iff 2-D and not the embedding, the output head or
  /// the MoE router (Canzona's MBO rule); expert matrices use it. Everything else gets AdamW.
  bool uses_matrix_optimizer() const;
};

/// Every tensor of `model` in registration order, which is the order Megatron's DDP sees in
/// `module.parameters()` (its ZeRO-1 buffer packs them in reverse):
///   embedding; for each layer i: <layer tensors>; final norm; output head (only when untied).
///
/// Megatron layer order (attention.py registers linear_proj in the base class before the
/// SelfAttention subclass adds linear_qkv and the q/k norms; TE's LayerNormLinear registers its
/// layer_norm_weight before its weight):
///   self_attention.linear_proj.weight, self_attention.linear_qkv.layer_norm_weight,
///   self_attention.linear_qkv.weight, self_attention.q_layernorm.weight,
///   self_attention.k_layernorm.weight, then dense: mlp.linear_fc1.layer_norm_weight,
///   mlp.linear_fc1.weight, mlp.linear_fc2.weight; or MoE: pre_mlp_layernorm.weight,
///   mlp.router.weight, mlp.experts.linear_fc1.weight{0..E-1},
///   mlp.experts.linear_fc2.weight{0..E-1}.
/// HF layer order (Qwen3DecoderLayer): self_attn.{q,k,v,o}_proj, self_attn.{q,k}_norm, then
///   mlp.{gate,up,down}_proj (MoE: mlp.gate, then per expert e
///   mlp.experts.{e}.{gate,up,down}_proj), input_layernorm, post_attention_layernorm.
/// Both layouts hold the same number of elements (model.total_params()).
std::vector<ParamSpec> parameters(const ModelSpec& model, ParamLayout layout);

/// Sum of numel over `params`.
std::int64_t total_numel(const std::vector<ParamSpec>& params);

/// "embedding", "output_head", "norm", "attention", "mlp", "router", "expert".
std::string_view to_string(ParamRole role);
/// "huggingface", "megatron".
std::string_view to_string(ParamLayout layout);
/// "none", "qkv", "gated_fc1".
std::string_view to_string(FusedKind kind);

/// Parses to_string(ParamLayout) output (also "hf"), ignoring case; ConfigError otherwise.
ParamLayout parse_param_layout(std::string_view text);

}  // namespace canzona::model
