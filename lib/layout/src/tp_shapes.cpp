// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// TP-local shapes and Megatron vocab padding.
#include "canzona/layout/tp_shapes.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace canzona::layout {

std::int64_t padded_vocab_size(std::int64_t vocab, int tp, int divisible_by) {
  if (vocab < 1 || tp < 1 || divisible_by < 1) {
    throw ConfigError(
        fmt::format("padded_vocab_size(vocab={}, tp={}, divisible_by={}): all three must be >= 1",
                    vocab, tp, divisible_by));
  }
  const std::int64_t multiple = std::int64_t{divisible_by} * tp;
  return (vocab + multiple - 1) / multiple * multiple;
}

std::vector<std::int64_t> tp_local_shape(const model::ParamSpec& param,
                                         const model::ModelSpec& model, int tp) {
  if (tp < 1) {
    throw ConfigError(fmt::format("tp={} is invalid for '{}': tp must be >= 1", tp, param.name));
  }
  std::vector<std::int64_t> shape = param.shape;
  if (param.role == model::ParamRole::kEmbedding || param.role == model::ParamRole::kOutputHead) {
    // VocabParallelEmbedding / the vocab-parallel output layer pad the vocab so every rank holds
    // the same number of rows, a multiple of 128.
    shape.at(0) = padded_vocab_size(model.vocab_size, tp) / tp;
    return shape;
  }
  if (param.tp_dim == model::kReplicated) {
    return shape;
  }
  const auto dim = static_cast<std::size_t>(param.tp_dim);
  if (dim >= shape.size() || shape[dim] % tp != 0) {
    throw ConfigError(fmt::format(
        "tp={} does not divide dim {} of '{}' (shape [{}]); choose a tp that divides it", tp,
        param.tp_dim, param.name, fmt::join(param.shape, ", ")));
  }
  shape[dim] /= tp;
  return shape;
}

std::int64_t tp_local_numel(const model::ParamSpec& param, const model::ModelSpec& model, int tp) {
  std::int64_t n = 1;
  for (std::int64_t d : tp_local_shape(param, model, tp)) {
    n *= d;
  }
  return n;
}

}  // namespace canzona::layout
