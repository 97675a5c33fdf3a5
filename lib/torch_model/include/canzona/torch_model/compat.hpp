// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one place that knows which libtorch the build uses: Debian's libtorch 1.13 (CPU, CI) or
// PyTorch's bundled libtorch 2.x (CUDA, GPU nodes). Every version-dependent call goes through
// here. Neither version has a C++ rms_norm that upcasts like HF's Qwen3RMSNorm, so RMSNorm is
// written out in qwen3.cpp for both.
#pragma once

#include <ATen/ATen.h>
#include <torch/version.h>

#include <cmath>
#include <limits>
#include <optional>

#define CANZONA_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||          \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace canzona::torch_model::compat {

/// True where libtorch has a public fused attention op (at::scaled_dot_product_attention, 2.0+:
/// flash / memory-efficient kernels on CUDA). 1.13 has only the private
/// at::_scaled_dot_product_attention, so it gets the plain formulation.
inline constexpr bool kFusedAttention = CANZONA_TORCH_AT_LEAST(2, 0);

/// [b, n·g, s, d] from [b, n, s, d]: every KV head repeated for the g query heads of its group,
/// consecutively (query head j uses KV head j / g, Megatron's group-major head order).
inline at::Tensor repeat_kv(const at::Tensor& kv, std::int64_t groups) {
  if (groups == 1) {
    return kv;
  }
  const auto b = kv.size(0);
  const auto n = kv.size(1);
  const auto s = kv.size(2);
  const auto d = kv.size(3);
  return kv.unsqueeze(2).expand({b, n, groups, s, d}).reshape({b, n * groups, s, d});
}

/// Causal attention written out: softmax(q·kᵀ/√d, causal mask)·v, the softmax in fp32 (fp64
/// for fp64 inputs). q [b, H, s, d]; k, v [b, K, s, d], H a multiple of K (GQA).
inline at::Tensor plain_causal_attention(const at::Tensor& q, const at::Tensor& k,
                                         const at::Tensor& v) {
  const std::int64_t groups = q.size(1) / k.size(1);
  const at::Tensor keys = repeat_kv(k, groups);
  const at::Tensor values = repeat_kv(v, groups);
  const std::int64_t s = q.size(2);
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(3)));
  at::Tensor scores = at::matmul(q, keys.transpose(-2, -1)) * scale;
  const at::Tensor future = at::ones({s, s}, q.options().dtype(at::kBool)).triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<double>::infinity());
  const at::ScalarType softmax_type =
      q.scalar_type() == at::kDouble ? at::kDouble : at::ScalarType::Float;
  const at::Tensor probs = at::softmax(scores, -1, softmax_type).to(q.scalar_type());
  return at::matmul(probs, values);
}

/// Causal GQA attention, q [b, H, s, d], k and v [b, K, s, d] → [b, H, s, d]: the fused op
/// where the libtorch version has one (2.5+ also without repeating k and v), the plain
/// formulation otherwise.
inline at::Tensor causal_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
#if CANZONA_TORCH_AT_LEAST(2, 5)
  return at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0,
                                          /*is_causal=*/true, /*scale=*/std::nullopt,
                                          /*enable_gqa=*/true);
#elif CANZONA_TORCH_AT_LEAST(2, 0)
  const std::int64_t groups = q.size(1) / k.size(1);
  return at::scaled_dot_product_attention(q, repeat_kv(k, groups), repeat_kv(v, groups),
                                          /*attn_mask=*/{}, /*dropout_p=*/0.0,
                                          /*is_causal=*/true);
#else
  return plain_causal_attention(q, k, v);
#endif
}

}  // namespace canzona::torch_model::compat
