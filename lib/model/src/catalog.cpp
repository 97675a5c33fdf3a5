// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Qwen3 hyper-parameters from the HF config.json files (cross-checked against Megatron-Bridge,
// NeMo, MaxText and the published safetensors totals).
#include "canzona/model/catalog.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace canzona::model {
namespace {

constexpr std::int64_t kQwen3Vocab = 151936;

ModelSpec dense(std::string name, std::string display, std::int64_t hidden,
                std::int64_t intermediate, std::int64_t layers, std::int64_t heads, bool tied) {
  ModelSpec spec;
  spec.name = std::move(name);
  spec.display_name = std::move(display);
  spec.hidden_size = hidden;
  spec.intermediate_size = intermediate;
  spec.num_layers = layers;
  spec.num_heads = heads;
  spec.num_kv_heads = 8;
  spec.head_dim = 128;
  spec.vocab_size = kQwen3Vocab;
  spec.tie_word_embeddings = tied;
  return spec;
}

ModelSpec moe(std::string name, std::string display, std::int64_t hidden, std::int64_t intermediate,
              std::int64_t moe_intermediate, std::int64_t layers, std::int64_t heads) {
  ModelSpec spec = dense(std::move(name), std::move(display), hidden, intermediate, layers, heads,
                         /*tied=*/false);
  spec.num_kv_heads = 4;
  spec.num_experts = 128;
  spec.moe_intermediate_size = moe_intermediate;
  spec.experts_per_token = 8;
  return spec;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

const std::vector<ModelSpec>& catalog() {
  // rms_norm_eps 1e-6, rope_theta 1e6, max_position_embeddings 40960 for all (struct defaults).
  static const std::vector<ModelSpec> models = {
      dense("qwen3-0.6b", "Qwen3-0.6B", 1024, 3072, 28, 16, true),
      dense("qwen3-1.7b", "Qwen3-1.7B", 2048, 6144, 28, 16, true),
      dense("qwen3-4b", "Qwen3-4B", 2560, 9728, 36, 32, true),
      dense("qwen3-8b", "Qwen3-8B", 4096, 12288, 36, 32, false),
      dense("qwen3-14b", "Qwen3-14B", 5120, 17408, 40, 40, false),
      dense("qwen3-32b", "Qwen3-32B", 5120, 25600, 64, 64, false),
      moe("qwen3-30b-a3b", "Qwen3-30B-A3B", 2048, 6144, 768, 48, 32),
      moe("qwen3-235b-a22b", "Qwen3-235B-A22B", 4096, 12288, 1536, 94, 64),
  };
  return models;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ModelSpec& spec : catalog()) {
    names.push_back(spec.name);
  }
  return names;
}

const ModelSpec& find_model(std::string_view name) {
  for (const ModelSpec& spec : catalog()) {
    if (iequals(spec.name, name) || iequals(spec.display_name, name)) {
      return spec;
    }
  }
  throw ConfigError(fmt::format(
      "unknown model '{}': valid names are {} (case-insensitive); for another model pass a "
      "JSON spec (an HF config.json works)",
      name, fmt::join(model_names(), ", ")));
}

}  // namespace canzona::model
