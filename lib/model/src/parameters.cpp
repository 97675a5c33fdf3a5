// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Parameter lists of the HF and Megatron layouts. The order is documented in parameters.hpp and
// matters: it decides the ZeRO-1 buffer layout.
#include "canzona/model/parameters.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>

namespace canzona::model {

std::int64_t ParamSpec::numel() const {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

bool ParamSpec::uses_matrix_optimizer() const {
  return is_matrix() && role != ParamRole::kEmbedding && role != ParamRole::kOutputHead &&
         role != ParamRole::kRouter;
}

namespace {

class Builder {
 public:
  explicit Builder(std::vector<ParamSpec>& out) : out_(out) {}

  void add(std::string name, std::vector<std::int64_t> shape, ParamRole role, int tp_dim, int layer,
           FusedKind fused = FusedKind::kNone, int expert = -1) {
    ParamSpec p;
    p.name = std::move(name);
    p.shape = std::move(shape);
    p.role = role;
    p.tp_dim = tp_dim;
    p.layer = layer;
    p.expert = expert;
    p.fused = fused;
    out_.push_back(std::move(p));
  }

 private:
  std::vector<ParamSpec>& out_;
};

void megatron_layer(const ModelSpec& m, int i, Builder& b) {
  const std::int64_t h = m.hidden_size;
  const std::string pre = fmt::format("decoder.layers.{}.", i);
  const std::string attn = pre + "self_attention.";
  b.add(attn + "linear_proj.weight", {h, m.q_rows()}, ParamRole::kAttention, kRowParallel, i);
  b.add(attn + "linear_qkv.layer_norm_weight", {h}, ParamRole::kNorm, kReplicated, i);
  b.add(attn + "linear_qkv.weight", {m.qkv_rows(), h}, ParamRole::kAttention, kColumnParallel, i,
        FusedKind::kQkv);
  b.add(attn + "q_layernorm.weight", {m.head_dim}, ParamRole::kNorm, kReplicated, i);
  b.add(attn + "k_layernorm.weight", {m.head_dim}, ParamRole::kNorm, kReplicated, i);
  if (!m.is_moe()) {
    const std::int64_t ffn = m.intermediate_size;
    b.add(pre + "mlp.linear_fc1.layer_norm_weight", {h}, ParamRole::kNorm, kReplicated, i);
    b.add(pre + "mlp.linear_fc1.weight", {2 * ffn, h}, ParamRole::kMlp, kColumnParallel, i,
          FusedKind::kGatedFc1);
    b.add(pre + "mlp.linear_fc2.weight", {h, ffn}, ParamRole::kMlp, kRowParallel, i);
    return;
  }
  // MoE: the post-attention norm is not fused into the grouped expert GEMM (TEGroupedMLP).
  const std::int64_t ffn = m.moe_intermediate_size;
  b.add(pre + "pre_mlp_layernorm.weight", {h}, ParamRole::kNorm, kReplicated, i);
  b.add(pre + "mlp.router.weight", {m.num_experts, h}, ParamRole::kRouter, kReplicated, i);
  for (int e = 0; e < static_cast<int>(m.num_experts); ++e) {
    b.add(fmt::format("{}mlp.experts.linear_fc1.weight{}", pre, e), {2 * ffn, h},
          ParamRole::kExpert, kColumnParallel, i, FusedKind::kGatedFc1, e);
  }
  for (int e = 0; e < static_cast<int>(m.num_experts); ++e) {
    b.add(fmt::format("{}mlp.experts.linear_fc2.weight{}", pre, e), {h, ffn}, ParamRole::kExpert,
          kRowParallel, i, FusedKind::kNone, e);
  }
}

void hf_layer(const ModelSpec& m, int i, Builder& b) {
  const std::int64_t h = m.hidden_size;
  const std::string pre = fmt::format("model.layers.{}.", i);
  const std::string attn = pre + "self_attn.";
  b.add(attn + "q_proj.weight", {m.q_rows(), h}, ParamRole::kAttention, kColumnParallel, i);
  b.add(attn + "k_proj.weight", {m.kv_rows(), h}, ParamRole::kAttention, kColumnParallel, i);
  b.add(attn + "v_proj.weight", {m.kv_rows(), h}, ParamRole::kAttention, kColumnParallel, i);
  b.add(attn + "o_proj.weight", {h, m.q_rows()}, ParamRole::kAttention, kRowParallel, i);
  b.add(attn + "q_norm.weight", {m.head_dim}, ParamRole::kNorm, kReplicated, i);
  b.add(attn + "k_norm.weight", {m.head_dim}, ParamRole::kNorm, kReplicated, i);
  if (!m.is_moe()) {
    const std::int64_t ffn = m.intermediate_size;
    b.add(pre + "mlp.gate_proj.weight", {ffn, h}, ParamRole::kMlp, kColumnParallel, i);
    b.add(pre + "mlp.up_proj.weight", {ffn, h}, ParamRole::kMlp, kColumnParallel, i);
    b.add(pre + "mlp.down_proj.weight", {h, ffn}, ParamRole::kMlp, kRowParallel, i);
  } else {
    const std::int64_t ffn = m.moe_intermediate_size;
    b.add(pre + "mlp.gate.weight", {m.num_experts, h}, ParamRole::kRouter, kReplicated, i);
    for (int e = 0; e < static_cast<int>(m.num_experts); ++e) {
      const std::string ex = fmt::format("{}mlp.experts.{}.", pre, e);
      b.add(ex + "gate_proj.weight", {ffn, h}, ParamRole::kExpert, kColumnParallel, i,
            FusedKind::kNone, e);
      b.add(ex + "up_proj.weight", {ffn, h}, ParamRole::kExpert, kColumnParallel, i,
            FusedKind::kNone, e);
      b.add(ex + "down_proj.weight", {h, ffn}, ParamRole::kExpert, kRowParallel, i,
            FusedKind::kNone, e);
    }
  }
  b.add(pre + "input_layernorm.weight", {h}, ParamRole::kNorm, kReplicated, i);
  b.add(pre + "post_attention_layernorm.weight", {h}, ParamRole::kNorm, kReplicated, i);
}

}  // namespace

std::vector<ParamSpec> parameters(const ModelSpec& model, ParamLayout layout) {
  const bool megatron = layout == ParamLayout::kMegatron;
  const std::size_t per_layer =
      model.is_moe() ? static_cast<std::size_t>(3 * model.num_experts + 10) : 11;
  std::vector<ParamSpec> out;
  out.reserve(static_cast<std::size_t>(model.num_layers) * per_layer + 3);
  Builder b(out);
  const std::int64_t v = model.vocab_size;
  const std::int64_t h = model.hidden_size;
  b.add(megatron ? "embedding.word_embeddings.weight" : "model.embed_tokens.weight", {v, h},
        ParamRole::kEmbedding, kColumnParallel, -1);
  for (int i = 0; i < static_cast<int>(model.num_layers); ++i) {
    if (megatron) {
      megatron_layer(model, i, b);
    } else {
      hf_layer(model, i, b);
    }
  }
  b.add(megatron ? "decoder.final_layernorm.weight" : "model.norm.weight", {h}, ParamRole::kNorm,
        kReplicated, -1);
  if (!model.tie_word_embeddings) {
    b.add(megatron ? "output_layer.weight" : "lm_head.weight", {v, h}, ParamRole::kOutputHead,
          kColumnParallel, -1);
  }
  return out;
}

std::int64_t total_numel(const std::vector<ParamSpec>& params) {
  std::int64_t total = 0;
  for (const ParamSpec& p : params) {
    total += p.numel();
  }
  return total;
}

std::string_view to_string(ParamRole role) {
  switch (role) {
    case ParamRole::kEmbedding:
      return "embedding";
    case ParamRole::kOutputHead:
      return "output_head";
    case ParamRole::kNorm:
      return "norm";
    case ParamRole::kAttention:
      return "attention";
    case ParamRole::kMlp:
      return "mlp";
    case ParamRole::kRouter:
      return "router";
    case ParamRole::kExpert:
      return "expert";
  }
  return "unknown";
}

std::string_view to_string(ParamLayout layout) {
  switch (layout) {
    case ParamLayout::kHuggingFace:
      return "huggingface";
    case ParamLayout::kMegatron:
      return "megatron";
  }
  return "unknown";
}

std::string_view to_string(FusedKind kind) {
  switch (kind) {
    case FusedKind::kNone:
      return "none";
    case FusedKind::kQkv:
      return "qkv";
    case FusedKind::kGatedFc1:
      return "gated_fc1";
  }
  return "unknown";
}

ParamLayout parse_param_layout(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "huggingface" || lower == "hf") {
    return ParamLayout::kHuggingFace;
  }
  if (lower == "megatron") {
    return ParamLayout::kMegatron;
  }
  throw ConfigError(fmt::format(
      "unknown parameter layout '{}': use 'huggingface' (or 'hf') or 'megatron'", text));
}

}  // namespace canzona::model
