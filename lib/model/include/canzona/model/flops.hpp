// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Model FLOPs of a training iteration, the numerator of model TFLOP/s (MFU): what the model's
// matrix products cost, independent of how an implementation computes them.
#pragma once

#include <cstdint>

#include "canzona/model/spec.hpp"

namespace canzona::model {

/// Matrix-product FLOPs (2 per multiply-add) of forward + backward over `sequences` sequences of
/// `seq_len` tokens, backward counted as twice forward (Megatron's
/// num_floating_point_operations without activation recomputation). Per token and layer,
/// forward: linear_qkv and linear_proj 2·h·(qkv_rows + q_rows); attention scores and their
/// product with the values 4·seq_len·q_rows (the full score matrix, no causal halving, as
/// Megatron counts); SwiGLU 6·h·ffn, or the router 2·h·experts plus top-k experts of
/// 6·h·moe_ffn each; and once per token the output head 2·h·vocab_size (unpadded). Norms, RoPE,
/// softmax and element-wise work are left out. Whole model, all TP ranks together.
double training_flops(const ModelSpec& model, std::int64_t sequences, std::int64_t seq_len);

}  // namespace canzona::model
