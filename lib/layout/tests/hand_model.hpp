// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The tiny model whose ZeRO-1 layout the layout tests compute by hand.
#pragma once

#include <canzona/model/spec.hpp>

namespace canzona::layout::testing {

// h=4, I=8, one layer, 2 heads of dim 2, one KV head, vocab 10, tied. Megatron params (numel at
// tp=1, vocab padded to 128): 0 embedding 512, 1 linear_proj 16, 2 qkv norm 4, 3 linear_qkv 32,
// 4 q norm 2, 5 k norm 2, 6 fc1 norm 4, 7 linear_fc1 64, 8 linear_fc2 32, 9 final norm 4.
inline model::ModelSpec hand_model() {
  model::ModelSpec m;
  m.name = "hand";
  m.hidden_size = 4;
  m.intermediate_size = 8;
  m.num_layers = 1;
  m.num_heads = 2;
  m.num_kv_heads = 1;
  m.head_dim = 2;
  m.vocab_size = 10;
  m.tie_word_embeddings = true;
  return m;
}

}  // namespace canzona::layout::testing
