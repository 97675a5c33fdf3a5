// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// TP-local shapes against the research file's per-rank table, and Megatron vocab padding.
#include <canzona/core/error.hpp>
#include <canzona/layout/tp_shapes.hpp>
#include <canzona/model/catalog.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace canzona::layout {
namespace {

using Shape = std::vector<std::int64_t>;

std::map<std::string, model::ParamSpec> by_name(const model::ModelSpec& m,
                                                model::ParamLayout layout) {
  std::map<std::string, model::ParamSpec> out;
  for (const model::ParamSpec& p : model::parameters(m, layout)) {
    out.emplace(p.name, p);
  }
  return out;
}

TEST(TpShapesTest, PaddedVocabMatchesMegatron) {
  EXPECT_EQ(padded_vocab_size(151936, 1), 151936);
  EXPECT_EQ(padded_vocab_size(151936, 2), 152064);
  EXPECT_EQ(padded_vocab_size(151936, 4), 152064);
  EXPECT_EQ(padded_vocab_size(151936, 8), 152576);
  EXPECT_EQ(padded_vocab_size(151936, 16), 153600);
  EXPECT_EQ(padded_vocab_size(151669, 1), 151680);
  EXPECT_EQ(padded_vocab_size(1000, 1), 1024);
  EXPECT_EQ(padded_vocab_size(151936, 8, 1187), 151936);  // NeMo's importer divisor
  EXPECT_THROW(padded_vocab_size(0, 1), ConfigError);
  EXPECT_THROW(padded_vocab_size(151936, 0), ConfigError);
}

struct Row {
  const char* model;
  int tp;
  Shape qkv, proj, fc1, fc2, vocab;
};

// Research file §1.6 "Per-TP-rank shard shapes", copied literally.
const Row kDenseTable[] = {
    {"qwen3-0.6b", 1, {4096, 1024}, {1024, 2048}, {6144, 1024}, {1024, 3072}, {151936, 1024}},
    {"qwen3-0.6b", 2, {2048, 1024}, {1024, 1024}, {3072, 1024}, {1024, 1536}, {76032, 1024}},
    {"qwen3-0.6b", 4, {1024, 1024}, {1024, 512}, {1536, 1024}, {1024, 768}, {38016, 1024}},
    {"qwen3-0.6b", 8, {512, 1024}, {1024, 256}, {768, 1024}, {1024, 384}, {19072, 1024}},
    {"qwen3-1.7b", 1, {4096, 2048}, {2048, 2048}, {12288, 2048}, {2048, 6144}, {151936, 2048}},
    {"qwen3-1.7b", 2, {2048, 2048}, {2048, 1024}, {6144, 2048}, {2048, 3072}, {76032, 2048}},
    {"qwen3-1.7b", 4, {1024, 2048}, {2048, 512}, {3072, 2048}, {2048, 1536}, {38016, 2048}},
    {"qwen3-1.7b", 8, {512, 2048}, {2048, 256}, {1536, 2048}, {2048, 768}, {19072, 2048}},
    {"qwen3-4b", 1, {6144, 2560}, {2560, 4096}, {19456, 2560}, {2560, 9728}, {151936, 2560}},
    {"qwen3-4b", 2, {3072, 2560}, {2560, 2048}, {9728, 2560}, {2560, 4864}, {76032, 2560}},
    {"qwen3-4b", 4, {1536, 2560}, {2560, 1024}, {4864, 2560}, {2560, 2432}, {38016, 2560}},
    {"qwen3-4b", 8, {768, 2560}, {2560, 512}, {2432, 2560}, {2560, 1216}, {19072, 2560}},
    {"qwen3-8b", 1, {6144, 4096}, {4096, 4096}, {24576, 4096}, {4096, 12288}, {151936, 4096}},
    {"qwen3-8b", 2, {3072, 4096}, {4096, 2048}, {12288, 4096}, {4096, 6144}, {76032, 4096}},
    {"qwen3-8b", 4, {1536, 4096}, {4096, 1024}, {6144, 4096}, {4096, 3072}, {38016, 4096}},
    {"qwen3-8b", 8, {768, 4096}, {4096, 512}, {3072, 4096}, {4096, 1536}, {19072, 4096}},
    {"qwen3-14b", 1, {7168, 5120}, {5120, 5120}, {34816, 5120}, {5120, 17408}, {151936, 5120}},
    {"qwen3-14b", 2, {3584, 5120}, {5120, 2560}, {17408, 5120}, {5120, 8704}, {76032, 5120}},
    {"qwen3-14b", 4, {1792, 5120}, {5120, 1280}, {8704, 5120}, {5120, 4352}, {38016, 5120}},
    {"qwen3-14b", 8, {896, 5120}, {5120, 640}, {4352, 5120}, {5120, 2176}, {19072, 5120}},
    {"qwen3-32b", 1, {10240, 5120}, {5120, 8192}, {51200, 5120}, {5120, 25600}, {151936, 5120}},
    {"qwen3-32b", 2, {5120, 5120}, {5120, 4096}, {25600, 5120}, {5120, 12800}, {76032, 5120}},
    {"qwen3-32b", 4, {2560, 5120}, {5120, 2048}, {12800, 5120}, {5120, 6400}, {38016, 5120}},
    {"qwen3-32b", 8, {1280, 5120}, {5120, 1024}, {6400, 5120}, {5120, 3200}, {19072, 5120}},
};

TEST(TpShapesTest, DenseShardShapesMatchResearchTable) {
  for (const Row& r : kDenseTable) {
    SCOPED_TRACE(std::string(r.model) + " tp=" + std::to_string(r.tp));
    const model::ModelSpec& m = model::find_model(r.model);
    const auto p = by_name(m, model::ParamLayout::kMegatron);
    const std::string pre = "decoder.layers.7.";
    EXPECT_EQ(tp_local_shape(p.at(pre + "self_attention.linear_qkv.weight"), m, r.tp), r.qkv);
    EXPECT_EQ(tp_local_shape(p.at(pre + "self_attention.linear_proj.weight"), m, r.tp), r.proj);
    EXPECT_EQ(tp_local_shape(p.at(pre + "mlp.linear_fc1.weight"), m, r.tp), r.fc1);
    EXPECT_EQ(tp_local_shape(p.at(pre + "mlp.linear_fc2.weight"), m, r.tp), r.fc2);
    EXPECT_EQ(tp_local_shape(p.at("embedding.word_embeddings.weight"), m, r.tp), r.vocab);
    if (!m.tie_word_embeddings) {
      EXPECT_EQ(tp_local_shape(p.at("output_layer.weight"), m, r.tp), r.vocab);
    }
    // Replicated tensors keep their full shape.
    EXPECT_EQ(tp_local_shape(p.at(pre + "self_attention.q_layernorm.weight"), m, r.tp), Shape{128});
    EXPECT_EQ(tp_local_shape(p.at(pre + "mlp.linear_fc1.layer_norm_weight"), m, r.tp),
              Shape{m.hidden_size});

    // HF layout: q/k/v and gate/up column-parallel, o and down row-parallel.
    const auto hf = by_name(m, model::ParamLayout::kHuggingFace);
    const std::string hpre = "model.layers.7.";
    EXPECT_EQ(tp_local_shape(hf.at(hpre + "self_attn.q_proj.weight"), m, r.tp),
              (Shape{m.q_rows() / r.tp, m.hidden_size}));
    EXPECT_EQ(tp_local_shape(hf.at(hpre + "self_attn.k_proj.weight"), m, r.tp),
              (Shape{1024 / r.tp, m.hidden_size}));
    EXPECT_EQ(tp_local_shape(hf.at(hpre + "self_attn.o_proj.weight"), m, r.tp), r.proj);
    EXPECT_EQ(tp_local_shape(hf.at(hpre + "mlp.down_proj.weight"), m, r.tp), r.fc2);
    EXPECT_EQ(tp_local_shape(hf.at("model.embed_tokens.weight"), m, r.tp), r.vocab);
  }
}

TEST(TpShapesTest, MoeShardShapes) {
  struct MoeRow {
    const char* model;
    int tp;
    Shape qkv, proj, router, fc1, fc2, vocab;
  };
  const MoeRow rows[] = {
      {"qwen3-30b-a3b",
       1,
       {5120, 2048},
       {2048, 4096},
       {128, 2048},
       {1536, 2048},
       {2048, 768},
       {151936, 2048}},
      {"qwen3-30b-a3b",
       2,
       {2560, 2048},
       {2048, 2048},
       {128, 2048},
       {768, 2048},
       {2048, 384},
       {76032, 2048}},
      {"qwen3-30b-a3b",
       4,
       {1280, 2048},
       {2048, 1024},
       {128, 2048},
       {384, 2048},
       {2048, 192},
       {38016, 2048}},
      {"qwen3-235b-a22b",
       1,
       {9216, 4096},
       {4096, 8192},
       {128, 4096},
       {3072, 4096},
       {4096, 1536},
       {151936, 4096}},
      {"qwen3-235b-a22b",
       2,
       {4608, 4096},
       {4096, 4096},
       {128, 4096},
       {1536, 4096},
       {4096, 768},
       {76032, 4096}},
      {"qwen3-235b-a22b",
       4,
       {2304, 4096},
       {4096, 2048},
       {128, 4096},
       {768, 4096},
       {4096, 384},
       {38016, 4096}},
  };
  for (const MoeRow& r : rows) {
    SCOPED_TRACE(std::string(r.model) + " tp=" + std::to_string(r.tp));
    const model::ModelSpec& m = model::find_model(r.model);
    const auto p = by_name(m, model::ParamLayout::kMegatron);
    const std::string pre = "decoder.layers.1.";
    EXPECT_EQ(tp_local_shape(p.at(pre + "self_attention.linear_qkv.weight"), m, r.tp), r.qkv);
    EXPECT_EQ(tp_local_shape(p.at(pre + "self_attention.linear_proj.weight"), m, r.tp), r.proj);
    EXPECT_EQ(tp_local_shape(p.at(pre + "mlp.router.weight"), m, r.tp), r.router);
    EXPECT_EQ(tp_local_shape(p.at(pre + "mlp.experts.linear_fc1.weight9"), m, r.tp), r.fc1);
    EXPECT_EQ(tp_local_shape(p.at(pre + "mlp.experts.linear_fc2.weight9"), m, r.tp), r.fc2);
    EXPECT_EQ(tp_local_shape(p.at("output_layer.weight"), m, r.tp), r.vocab);
  }
}

TEST(TpShapesTest, UndividedPartitionDimIsConfigError) {
  const model::ModelSpec& m = model::find_model("qwen3-8b");
  const auto p = by_name(m, model::ParamLayout::kMegatron);
  EXPECT_THROW(tp_local_shape(p.at("decoder.layers.0.self_attention.linear_qkv.weight"), m, 5),
               ConfigError);
  EXPECT_THROW(tp_local_shape(p.at("decoder.layers.0.mlp.linear_fc2.weight"), m, 0), ConfigError);
  EXPECT_EQ(tp_local_numel(p.at("decoder.layers.0.mlp.linear_fc2.weight"), m, 8), 4096 * 1536);
}

}  // namespace
}  // namespace canzona::layout
