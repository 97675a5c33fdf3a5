// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Tiny dense Qwen3-shaped models for tests that run real optimizer steps: every parameter kind
// of the real models (fused qkv, gated fc1, q/k norms, embedding, head) at shapes a CPU steps in
// milliseconds.
#pragma once

#include <canzona/model/spec.hpp>

#include <cstdint>
#include <string>

namespace canzona::testing {

/// The shape of a tiny dense model; the defaults are valid for tp 1, 2 and 4.
struct TinyDense {
  std::int64_t hidden = 64;
  std::int64_t ffn = 96;
  std::int64_t layers = 2;
  std::int64_t heads = 8;
  std::int64_t kv_heads = 4;
  std::int64_t head_dim = 8;
  std::int64_t vocab = 512;
  bool tied = false;
};

inline model::ModelSpec tiny_dense_model(const TinyDense& shape = {},
                                         const std::string& name = "tiny-qwen3") {
  model::ModelSpec m;
  m.name = name;
  m.display_name = name;
  m.hidden_size = shape.hidden;
  m.intermediate_size = shape.ffn;
  m.num_layers = shape.layers;
  m.num_heads = shape.heads;
  m.num_kv_heads = shape.kv_heads;
  m.head_dim = shape.head_dim;
  m.vocab_size = shape.vocab;
  m.tie_word_embeddings = shape.tied;
  return m;
}

}  // namespace canzona::testing
