// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/model/flops.hpp"

namespace canzona::model {

double training_flops(const ModelSpec& model, std::int64_t sequences, std::int64_t seq_len) {
  const auto h = static_cast<double>(model.hidden_size);
  const auto s = static_cast<double>(seq_len);
  const double attention_linear = 2 * h * static_cast<double>(model.qkv_rows() + model.q_rows());
  const double attention_core = 4 * s * static_cast<double>(model.q_rows());
  const double mlp = model.is_moe() ? 2 * h * static_cast<double>(model.num_experts) +
                                          static_cast<double>(model.experts_per_token) * 6 * h *
                                              static_cast<double>(model.moe_intermediate_size)
                                    : 6 * h * static_cast<double>(model.intermediate_size);
  const double per_token =
      static_cast<double>(model.num_layers) * (attention_linear + attention_core + mlp) +
      2 * h * static_cast<double>(model.vocab_size);
  constexpr double kForwardAndBackward = 3;
  return kForwardAndBackward * per_token * s * static_cast<double>(sequences);
}

}  // namespace canzona::model
