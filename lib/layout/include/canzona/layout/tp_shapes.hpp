// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shapes one tensor-parallel rank stores: partition dim divided by tp, vocab padded Megatron-style.
#pragma once

#include <cstdint>
#include <vector>

#include <canzona/model/parameters.hpp>
#include <canzona/model/spec.hpp>

namespace canzona::layout {

/// Megatron's --make-vocab-size-divisible-by default.
inline constexpr int kVocabDivisibleBy = 128;

/// Megatron's _vocab_size_with_padding: ceil(vocab / (divisible_by·tp)) · divisible_by·tp.
/// Qwen3 (151936): tp 1 → 151936, tp 2 and 4 → 152064, tp 8 → 152576.
/// ConfigError for vocab < 1, tp < 1 or divisible_by < 1.
std::int64_t padded_vocab_size(std::int64_t vocab, int tp, int divisible_by = kVocabDivisibleBy);

/// The shape one TP rank holds of `param` (full shape in ParamSpec): tp_dim divided by tp;
/// replicated params unchanged; embedding and output head use the padded vocab
/// ([padded_vocab_size(V, tp) / tp, h], also at tp = 1 when V is not a multiple of 128).
/// ConfigError when tp does not divide the partition dim.
std::vector<std::int64_t> tp_local_shape(const model::ParamSpec& param,
                                         const model::ModelSpec& model, int tp);

/// Product of tp_local_shape.
std::int64_t tp_local_numel(const model::ParamSpec& param, const model::ModelSpec& model, int tp);

}  // namespace canzona::layout
