// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// training_flops against a count from the parameter list: every matrix a token multiplies
// (experts weighted by top-k / experts), the head (the embedding's shape when tied), plus the
// attention scores and values.
#include <canzona/model/catalog.hpp>
#include <canzona/model/flops.hpp>
#include <canzona/model/parameters.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using canzona::model::ModelSpec;
using canzona::model::ParamRole;

double count_from_parameters(const ModelSpec& model, std::int64_t sequences, std::int64_t seq) {
  double per_token = 0;
  for (const auto& p :
       canzona::model::parameters(model, canzona::model::ParamLayout::kHuggingFace)) {
    const auto n = static_cast<double>(p.numel());
    switch (p.role) {
      case ParamRole::kAttention:
      case ParamRole::kMlp:
      case ParamRole::kRouter:
      case ParamRole::kOutputHead:
        per_token += 2 * n;
        break;
      case ParamRole::kExpert:
        per_token += 2 * n * static_cast<double>(model.experts_per_token) /
                     static_cast<double>(model.num_experts);
        break;
      case ParamRole::kEmbedding:
        if (model.tie_word_embeddings) per_token += 2 * n;  // the head multiplies it
        break;
      case ParamRole::kNorm:
        break;
    }
  }
  per_token += static_cast<double>(model.num_layers) * 4 * static_cast<double>(seq) *
               static_cast<double>(model.num_heads * model.head_dim);
  return 3 * per_token * static_cast<double>(seq * sequences);
}

TEST(TrainingFlopsTest, EqualsTheCountFromTheParameterListForEveryCatalogModel) {
  for (const ModelSpec& model : canzona::model::catalog()) {
    for (const std::int64_t seq : {1, 512, 4096}) {
      const double want = count_from_parameters(model, 3, seq);
      EXPECT_NEAR(canzona::model::training_flops(model, 3, seq), want, 1e-12 * want)
          << model.name << " seq " << seq;
    }
  }
}

TEST(TrainingFlopsTest, LinearInSequencesAndTheAttentionTermQuadraticInLength) {
  const ModelSpec& model = canzona::model::find_model("qwen3-8b");
  const double one = canzona::model::training_flops(model, 1, 1024);
  EXPECT_DOUBLE_EQ(canzona::model::training_flops(model, 4, 1024), 4 * one);
  // f(2s) − 2·f(s) is the extra attention work: 3 · L · 4 · q_rows · (2s)² − 2 · (same at s).
  const double extra = canzona::model::training_flops(model, 1, 2048) - 2 * one;
  const double quadratic = 3.0 * 36 * 4 * 4096 * (2048.0 * 2048 - 2 * 1024.0 * 1024);
  EXPECT_NEAR(extra, quadratic, 1e-9 * quadratic);
}

}  // namespace
