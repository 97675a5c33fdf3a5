// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The Qwen3 catalog against the published hyper-parameters and parameter totals.
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/parameters.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace canzona::model {
namespace {

struct Published {
  const char* name;
  std::int64_t total;
  std::int64_t non_embedding;
  std::int64_t per_layer;
  std::int64_t matrix_numel;
  std::size_t megatron_matrices;
  std::size_t hf_matrices;
};

// Totals: safetensors metadata / model cards (research file §1.4, §1.5). Matrix counts computed
// by hand: L·(attention + MLP weights).
constexpr Published kPublished[] = {
    {"qwen3-0.6b", 596'049'920, 440'467'456, 15'730'944, 440'401'920, 112, 196},
    {"qwen3-1.7b", 1'720'574'976, 1'409'410'048, 50'336'000, 1'409'286'144, 112, 196},
    {"qwen3-4b", 4'022'468'096, 3'633'511'936, 100'930'816, 3'633'315'840, 144, 252},
    {"qwen3-8b", 8'190'735'360, 6'946'075'648, 192'946'432, 6'945'767'424, 144, 252},
    {"qwen3-14b", 14'768'307'200, 13'212'482'560, 330'311'936, 13'212'057'600, 160, 280},
    {"qwen3-32b", 32'762'123'264, 31'206'298'624, 487'598'336, 31'205'621'760, 256, 448},
    {"qwen3-30b-a3b", 30'532'122'624, 29'909'792'768, 623'120'640, 29'896'998'912, 12'384, 18'624},
    {"qwen3-235b-a22b", 235'093'634'560, 233'848'974'848, 2'487'755'008, 233'798'893'568, 24'252,
     36'472},
};

TEST(CatalogTest, ListsTheEightQwen3ModelsInOrder) {
  const std::vector<std::string> expected = {"qwen3-0.6b",    "qwen3-1.7b",     "qwen3-4b",
                                             "qwen3-8b",      "qwen3-14b",      "qwen3-32b",
                                             "qwen3-30b-a3b", "qwen3-235b-a22b"};
  EXPECT_EQ(model_names(), expected);
  EXPECT_EQ(catalog().at(5).display_name, "Qwen3-32B");
  EXPECT_EQ(catalog().at(7).display_name, "Qwen3-235B-A22B");
}

TEST(CatalogTest, TotalsEqualPublishedCountsInBothLayouts) {
  for (const Published& p : kPublished) {
    SCOPED_TRACE(p.name);
    const ModelSpec& m = find_model(p.name);
    EXPECT_EQ(m.total_params(), p.total);
    EXPECT_EQ(m.non_embedding_params(), p.non_embedding);
    EXPECT_EQ(m.params_per_layer(), p.per_layer);
    EXPECT_EQ(total_numel(parameters(m, ParamLayout::kHuggingFace)), p.total);
    EXPECT_EQ(total_numel(parameters(m, ParamLayout::kMegatron)), p.total);
  }
}

TEST(CatalogTest, MatrixOptimizerParamsSplitExactly) {
  for (const Published& p : kPublished) {
    SCOPED_TRACE(p.name);
    const ModelSpec& m = find_model(p.name);
    for (ParamLayout layout : {ParamLayout::kHuggingFace, ParamLayout::kMegatron}) {
      std::int64_t matrix = 0;
      std::int64_t adamw = 0;
      std::size_t count = 0;
      for (const ParamSpec& param : parameters(m, layout)) {
        if (param.uses_matrix_optimizer()) {
          matrix += param.numel();
          ++count;
        } else {
          adamw += param.numel();
        }
      }
      EXPECT_EQ(matrix, p.matrix_numel);
      EXPECT_EQ(adamw, p.total - p.matrix_numel);
      EXPECT_EQ(count, layout == ParamLayout::kMegatron ? p.megatron_matrices : p.hf_matrices);
    }
  }
}

TEST(CatalogTest, HyperParametersMatchConfigJson) {
  struct Row {
    const char* name;
    std::int64_t h, ffn, layers, heads, kv, moe_ffn, experts;
    bool tied;
  };
  const Row rows[] = {
      {"qwen3-0.6b", 1024, 3072, 28, 16, 8, 0, 0, true},
      {"qwen3-1.7b", 2048, 6144, 28, 16, 8, 0, 0, true},
      {"qwen3-4b", 2560, 9728, 36, 32, 8, 0, 0, true},
      {"qwen3-8b", 4096, 12288, 36, 32, 8, 0, 0, false},
      {"qwen3-14b", 5120, 17408, 40, 40, 8, 0, 0, false},
      {"qwen3-32b", 5120, 25600, 64, 64, 8, 0, 0, false},
      {"qwen3-30b-a3b", 2048, 6144, 48, 32, 4, 768, 128, false},
      {"qwen3-235b-a22b", 4096, 12288, 94, 64, 4, 1536, 128, false},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    const ModelSpec& m = find_model(r.name);
    EXPECT_EQ(m.hidden_size, r.h);
    EXPECT_EQ(m.intermediate_size, r.ffn);
    EXPECT_EQ(m.num_layers, r.layers);
    EXPECT_EQ(m.num_heads, r.heads);
    EXPECT_EQ(m.num_kv_heads, r.kv);
    EXPECT_EQ(m.head_dim, 128);
    EXPECT_EQ(m.vocab_size, 151936);
    EXPECT_EQ(m.tie_word_embeddings, r.tied);
    EXPECT_EQ(m.moe_intermediate_size, r.moe_ffn);
    EXPECT_EQ(m.num_experts, r.experts);
    EXPECT_EQ(m.experts_per_token, r.experts > 0 ? 8 : 0);
    EXPECT_EQ(m.rms_norm_eps, 1e-6);
    EXPECT_EQ(m.rope_theta, 1e6);
    EXPECT_EQ(m.max_position_embeddings, 40960);
  }
}

TEST(CatalogTest, MoeActiveParamsMatchModelCards) {
  EXPECT_EQ(find_model("qwen3-30b-a3b").active_params(), 3'353'032'704);
  EXPECT_EQ(find_model("qwen3-235b-a22b").active_params(), 22'190'763'520);
  // Dense: every parameter is active.
  EXPECT_EQ(find_model("qwen3-8b").active_params(), 8'190'735'360);
}

TEST(CatalogTest, FindModelIgnoresCase) {
  EXPECT_EQ(&find_model("Qwen3-32B"), &find_model("qwen3-32b"));
  EXPECT_EQ(&find_model("QWEN3-30B-A3B"), &catalog().at(6));
  EXPECT_EQ(find_model("qwen3-0.6B").hidden_size, 1024);
}

TEST(CatalogTest, UnknownModelListsValidNames) {
  try {
    find_model("qwen3-72b");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("qwen3-72b"), std::string::npos) << what;
    EXPECT_NE(what.find("qwen3-0.6b"), std::string::npos) << what;
    EXPECT_NE(what.find("qwen3-235b-a22b"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace canzona::model
