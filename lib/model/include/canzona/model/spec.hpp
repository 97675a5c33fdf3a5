// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// ModelSpec: the hyper-parameters of a Qwen3-style decoder (dense or MoE) and the parameter
// counts that follow from them. Plain data; the catalog and JSON specs produce it.
#pragma once

#include <cstdint>
#include <string>

namespace canzona::model {

/// Hyper-parameters of a Qwen3-family decoder-only transformer: pre-norm RMSNorm blocks, GQA
/// attention with QK-norm over head_dim, SwiGLU MLP (or a top-k MoE of SwiGLU experts in every
/// layer), no biases. Field names follow the HF config.json keys where one exists.
///
/// `head_dim` is explicit and is never derived as hidden_size / num_heads: for Qwen3-0.6B, 4B,
/// 32B, 30B-A3B and 235B-A22B, num_heads * head_dim != hidden_size.
struct ModelSpec {
  std::string name;          ///< catalog key, lowercase ("qwen3-32b")
  std::string display_name;  ///< as published ("Qwen3-32B")
  std::int64_t hidden_size = 0;
  std::int64_t intermediate_size = 0;  ///< dense MLP width; unused by MoE layers
  std::int64_t num_layers = 0;
  std::int64_t num_heads = 0;     ///< query heads H
  std::int64_t num_kv_heads = 0;  ///< KV heads K (= Megatron num_query_groups)
  std::int64_t head_dim = 0;
  std::int64_t vocab_size = 0;  ///< embedding rows as stored in the checkpoint (unpadded)
  bool tie_word_embeddings = false;
  double rms_norm_eps = 1e-6;
  double rope_theta = 1e6;
  std::int64_t max_position_embeddings = 40960;
  std::int64_t num_experts = 0;  ///< 0 = dense; otherwise every layer is MoE
  std::int64_t moe_intermediate_size = 0;
  std::int64_t experts_per_token = 0;  ///< top-k routing

  bool is_moe() const { return num_experts > 0; }
  /// Query heads per KV group, H / K.
  std::int64_t heads_per_group() const { return num_heads / num_kv_heads; }
  /// Rows of q_proj: H * d.
  std::int64_t q_rows() const { return num_heads * head_dim; }
  /// Rows of k_proj (and of v_proj): K * d.
  std::int64_t kv_rows() const { return num_kv_heads * head_dim; }
  /// Rows of Megatron's fused linear_qkv: (H + 2K) * d.
  std::int64_t qkv_rows() const { return q_rows() + 2 * kv_rows(); }

  /// q, k, v and o projection weights of one layer.
  std::int64_t attention_matrix_params() const;
  /// RMSNorm weights of one layer: input and post-attention norms (h each), q/k norms (d each).
  std::int64_t layer_norm_params() const;
  /// MLP of one layer: gate, up, down (dense); router plus all experts (MoE).
  std::int64_t mlp_params() const;
  /// MLP parameters one token touches in one layer (router plus top-k experts for MoE).
  std::int64_t active_mlp_params() const;
  /// Everything in one decoder layer.
  std::int64_t params_per_layer() const;
  /// Input embedding, vocab_size * hidden_size (unpadded).
  std::int64_t embedding_params() const;
  /// Untied output head; 0 when tie_word_embeddings.
  std::int64_t output_head_params() const;
  /// Whole model, as in the published checkpoint (unpadded vocab).
  std::int64_t total_params() const;
  /// total minus embedding minus untied head (the model cards' "non-embedding" count).
  std::int64_t non_embedding_params() const;
  /// Parameters one token uses (all dense parts, router, top-k experts, embedding and head).
  std::int64_t active_params() const;
};

/// Two specs are equal when every hyper-parameter (and the names) are equal.
bool operator==(const ModelSpec& a, const ModelSpec& b);

}  // namespace canzona::model
