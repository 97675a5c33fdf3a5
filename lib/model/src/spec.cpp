// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Parameter counts of a ModelSpec; parameters() must agree with these (tested).
#include "canzona/model/spec.hpp"

namespace canzona::model {

std::int64_t ModelSpec::attention_matrix_params() const {
  // q [H·d, h], k and v [K·d, h], o [h, H·d].
  return hidden_size * (2 * q_rows() + 2 * kv_rows());
}

std::int64_t ModelSpec::layer_norm_params() const { return 2 * hidden_size + 2 * head_dim; }

std::int64_t ModelSpec::mlp_params() const {
  if (!is_moe()) {
    return 3 * hidden_size * intermediate_size;
  }
  const std::int64_t router = num_experts * hidden_size;
  return router + num_experts * 3 * hidden_size * moe_intermediate_size;
}

std::int64_t ModelSpec::active_mlp_params() const {
  if (!is_moe()) {
    return mlp_params();
  }
  return num_experts * hidden_size + experts_per_token * 3 * hidden_size * moe_intermediate_size;
}

std::int64_t ModelSpec::params_per_layer() const {
  return attention_matrix_params() + layer_norm_params() + mlp_params();
}

std::int64_t ModelSpec::embedding_params() const { return vocab_size * hidden_size; }

std::int64_t ModelSpec::output_head_params() const {
  return tie_word_embeddings ? 0 : vocab_size * hidden_size;
}

std::int64_t ModelSpec::total_params() const {
  // + hidden_size: the final RMSNorm.
  return num_layers * params_per_layer() + embedding_params() + output_head_params() + hidden_size;
}

std::int64_t ModelSpec::non_embedding_params() const {
  return total_params() - embedding_params() - output_head_params();
}

std::int64_t ModelSpec::active_params() const {
  const std::int64_t layer = attention_matrix_params() + layer_norm_params() + active_mlp_params();
  return num_layers * layer + embedding_params() + output_head_params() + hidden_size;
}

bool operator==(const ModelSpec& a, const ModelSpec& b) {
  return a.name == b.name && a.display_name == b.display_name && a.hidden_size == b.hidden_size &&
         a.intermediate_size == b.intermediate_size && a.num_layers == b.num_layers &&
         a.num_heads == b.num_heads && a.num_kv_heads == b.num_kv_heads &&
         a.head_dim == b.head_dim && a.vocab_size == b.vocab_size &&
         a.tie_word_embeddings == b.tie_word_embeddings && a.rms_norm_eps == b.rms_norm_eps &&
         a.rope_theta == b.rope_theta && a.max_position_embeddings == b.max_position_embeddings &&
         a.num_experts == b.num_experts && a.moe_intermediate_size == b.moe_intermediate_size &&
         a.experts_per_token == b.experts_per_token;
}

}  // namespace canzona::model
