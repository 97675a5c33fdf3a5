// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// An independent Qwen3 forward pass in plain double-precision loops, no libtorch and no TP: the
// oracle the libtorch model is tested against. It reads Megatron's parameter names and shapes
// and nothing else from the project.
#pragma once

#include <canzona/model/spec.hpp>

#include <cstdint>
#include <vector>

namespace canzona::torch_model::testing {

/// One row-major vector per parameter of model::parameters(model, kMegatron), full shapes
/// (TP = 1, unpadded vocabulary), in that order.
using ReferenceParams = std::vector<std::vector<double>>;

struct ReferenceOutput {
  std::vector<double> logits;  ///< [batch·seq, vocab_size], row-major
  double loss = 0;             ///< mean next-token cross-entropy over batch·seq tokens
  /// MoE: the experts each token was routed to, per layer, sequence, token, in rank order.
  std::vector<std::int64_t> routing;
};

/// Qwen3 (HF Qwen3ForCausalLM / Qwen3MoeForCausalLM semantics) on `tokens` ([batch, seq],
/// row-major), loss against `labels` (same shape).
ReferenceOutput reference_forward(const model::ModelSpec& model, const ReferenceParams& params,
                                  const std::vector<std::int64_t>& tokens,
                                  const std::vector<std::int64_t>& labels, std::int64_t batch,
                                  std::int64_t seq);

}  // namespace canzona::torch_model::testing
