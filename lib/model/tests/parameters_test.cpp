// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Parameter lists: names, order, shapes (research tables), roles, TP dims, optimizer classes.
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/parameters.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace canzona::model {
namespace {

using Shape = std::vector<std::int64_t>;

std::map<std::string, ParamSpec> by_name(const std::vector<ParamSpec>& params) {
  std::map<std::string, ParamSpec> out;
  for (const ParamSpec& p : params) {
    EXPECT_TRUE(out.emplace(p.name, p).second) << "duplicate name " << p.name;
  }
  return out;
}

struct DenseShapes {
  const char* name;
  Shape q, kv, o, gate, down, norm;  // HF
  Shape qkv, proj, fc1, fc2;         // Megatron
};

// Research file §1.4 tables, copied literally.
const DenseShapes kDense[] = {
    {"qwen3-0.6b",
     {2048, 1024},
     {1024, 1024},
     {1024, 2048},
     {3072, 1024},
     {1024, 3072},
     {1024},
     {4096, 1024},
     {1024, 2048},
     {6144, 1024},
     {1024, 3072}},
    {"qwen3-1.7b",
     {2048, 2048},
     {1024, 2048},
     {2048, 2048},
     {6144, 2048},
     {2048, 6144},
     {2048},
     {4096, 2048},
     {2048, 2048},
     {12288, 2048},
     {2048, 6144}},
    {"qwen3-4b",
     {4096, 2560},
     {1024, 2560},
     {2560, 4096},
     {9728, 2560},
     {2560, 9728},
     {2560},
     {6144, 2560},
     {2560, 4096},
     {19456, 2560},
     {2560, 9728}},
    {"qwen3-8b",
     {4096, 4096},
     {1024, 4096},
     {4096, 4096},
     {12288, 4096},
     {4096, 12288},
     {4096},
     {6144, 4096},
     {4096, 4096},
     {24576, 4096},
     {4096, 12288}},
    {"qwen3-14b",
     {5120, 5120},
     {1024, 5120},
     {5120, 5120},
     {17408, 5120},
     {5120, 17408},
     {5120},
     {7168, 5120},
     {5120, 5120},
     {34816, 5120},
     {5120, 17408}},
    {"qwen3-32b",
     {8192, 5120},
     {1024, 5120},
     {5120, 8192},
     {25600, 5120},
     {5120, 25600},
     {5120},
     {10240, 5120},
     {5120, 8192},
     {51200, 5120},
     {5120, 25600}},
};

TEST(ParametersTest, DenseHuggingFaceShapesMatchResearchTable) {
  for (const DenseShapes& s : kDense) {
    SCOPED_TRACE(s.name);
    const ModelSpec& m = find_model(s.name);
    const auto params = by_name(parameters(m, ParamLayout::kHuggingFace));
    for (int i : {0, static_cast<int>(m.num_layers) - 1}) {
      const std::string pre = "model.layers." + std::to_string(i) + ".";
      EXPECT_EQ(params.at(pre + "self_attn.q_proj.weight").shape, s.q);
      EXPECT_EQ(params.at(pre + "self_attn.k_proj.weight").shape, s.kv);
      EXPECT_EQ(params.at(pre + "self_attn.v_proj.weight").shape, s.kv);
      EXPECT_EQ(params.at(pre + "self_attn.o_proj.weight").shape, s.o);
      EXPECT_EQ(params.at(pre + "self_attn.q_norm.weight").shape, Shape{128});
      EXPECT_EQ(params.at(pre + "self_attn.k_norm.weight").shape, Shape{128});
      EXPECT_EQ(params.at(pre + "mlp.gate_proj.weight").shape, s.gate);
      EXPECT_EQ(params.at(pre + "mlp.up_proj.weight").shape, s.gate);
      EXPECT_EQ(params.at(pre + "mlp.down_proj.weight").shape, s.down);
      EXPECT_EQ(params.at(pre + "input_layernorm.weight").shape, s.norm);
      EXPECT_EQ(params.at(pre + "post_attention_layernorm.weight").shape, s.norm);
    }
    EXPECT_EQ(params.at("model.embed_tokens.weight").shape, (Shape{151936, s.norm[0]}));
    EXPECT_EQ(params.at("model.norm.weight").shape, s.norm);
    EXPECT_EQ(params.count("lm_head.weight"), m.tie_word_embeddings ? 0U : 1U);
    EXPECT_EQ(params.size(),
              static_cast<std::size_t>(m.num_layers * 11 + 2) + (m.tie_word_embeddings ? 0 : 1));
  }
}

TEST(ParametersTest, DenseMegatronShapesMatchResearchTable) {
  for (const DenseShapes& s : kDense) {
    SCOPED_TRACE(s.name);
    const ModelSpec& m = find_model(s.name);
    const auto params = by_name(parameters(m, ParamLayout::kMegatron));
    for (int i : {0, static_cast<int>(m.num_layers) - 1}) {
      const std::string pre = "decoder.layers." + std::to_string(i) + ".";
      EXPECT_EQ(params.at(pre + "self_attention.linear_qkv.weight").shape, s.qkv);
      EXPECT_EQ(params.at(pre + "self_attention.linear_qkv.layer_norm_weight").shape, s.norm);
      EXPECT_EQ(params.at(pre + "self_attention.q_layernorm.weight").shape, Shape{128});
      EXPECT_EQ(params.at(pre + "self_attention.k_layernorm.weight").shape, Shape{128});
      EXPECT_EQ(params.at(pre + "self_attention.linear_proj.weight").shape, s.proj);
      EXPECT_EQ(params.at(pre + "mlp.linear_fc1.weight").shape, s.fc1);
      EXPECT_EQ(params.at(pre + "mlp.linear_fc1.layer_norm_weight").shape, s.norm);
      EXPECT_EQ(params.at(pre + "mlp.linear_fc2.weight").shape, s.fc2);
    }
    EXPECT_EQ(params.at("embedding.word_embeddings.weight").shape, (Shape{151936, s.norm[0]}));
    EXPECT_EQ(params.at("decoder.final_layernorm.weight").shape, s.norm);
    EXPECT_EQ(params.count("output_layer.weight"), m.tie_word_embeddings ? 0U : 1U);
    EXPECT_EQ(params.size(),
              static_cast<std::size_t>(m.num_layers * 8 + 2) + (m.tie_word_embeddings ? 0 : 1));
  }
}

TEST(ParametersTest, Qwen3_1_7BHas310HuggingFaceTensors) {
  // The published safetensors plan: "28 layers, 310 tensors, 1720574976 weights".
  const auto params = parameters(find_model("qwen3-1.7b"), ParamLayout::kHuggingFace);
  EXPECT_EQ(params.size(), 310U);
  EXPECT_EQ(total_numel(params), 1'720'574'976);
}

TEST(ParametersTest, MegatronOrderIsRegistrationOrder) {
  const auto params = parameters(find_model("qwen3-8b"), ParamLayout::kMegatron);
  const std::vector<std::string> expected = {
      "embedding.word_embeddings.weight",
      "decoder.layers.0.self_attention.linear_proj.weight",
      "decoder.layers.0.self_attention.linear_qkv.layer_norm_weight",
      "decoder.layers.0.self_attention.linear_qkv.weight",
      "decoder.layers.0.self_attention.q_layernorm.weight",
      "decoder.layers.0.self_attention.k_layernorm.weight",
      "decoder.layers.0.mlp.linear_fc1.layer_norm_weight",
      "decoder.layers.0.mlp.linear_fc1.weight",
      "decoder.layers.0.mlp.linear_fc2.weight",
      "decoder.layers.1.self_attention.linear_proj.weight",
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(params[i].name, expected[i]) << "position " << i;
  }
  EXPECT_EQ(params[params.size() - 2].name, "decoder.final_layernorm.weight");
  EXPECT_EQ(params.back().name, "output_layer.weight");
  EXPECT_EQ(params[1].layer, 0);
  EXPECT_EQ(params[9].layer, 1);
  EXPECT_EQ(params.back().layer, -1);
}

TEST(ParametersTest, HuggingFaceOrderIsRegistrationOrder) {
  const auto params = parameters(find_model("qwen3-0.6b"), ParamLayout::kHuggingFace);
  const std::vector<std::string> expected = {
      "model.embed_tokens.weight",
      "model.layers.0.self_attn.q_proj.weight",
      "model.layers.0.self_attn.k_proj.weight",
      "model.layers.0.self_attn.v_proj.weight",
      "model.layers.0.self_attn.o_proj.weight",
      "model.layers.0.self_attn.q_norm.weight",
      "model.layers.0.self_attn.k_norm.weight",
      "model.layers.0.mlp.gate_proj.weight",
      "model.layers.0.mlp.up_proj.weight",
      "model.layers.0.mlp.down_proj.weight",
      "model.layers.0.input_layernorm.weight",
      "model.layers.0.post_attention_layernorm.weight",
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(params[i].name, expected[i]) << "position " << i;
  }
  EXPECT_EQ(params.back().name, "model.norm.weight");  // tied: no lm_head
}

TEST(ParametersTest, RolesTpDimsAndOptimizerClasses) {
  const auto params = by_name(parameters(find_model("qwen3-32b"), ParamLayout::kMegatron));
  struct Expect {
    const char* name;
    ParamRole role;
    int tp_dim;
    FusedKind fused;
    bool matrix;
  };
  const Expect expects[] = {
      {"embedding.word_embeddings.weight", ParamRole::kEmbedding, 0, FusedKind::kNone, false},
      {"output_layer.weight", ParamRole::kOutputHead, 0, FusedKind::kNone, false},
      {"decoder.final_layernorm.weight", ParamRole::kNorm, -1, FusedKind::kNone, false},
      {"decoder.layers.3.self_attention.linear_qkv.weight", ParamRole::kAttention, 0,
       FusedKind::kQkv, true},
      {"decoder.layers.3.self_attention.linear_qkv.layer_norm_weight", ParamRole::kNorm, -1,
       FusedKind::kNone, false},
      {"decoder.layers.3.self_attention.q_layernorm.weight", ParamRole::kNorm, -1, FusedKind::kNone,
       false},
      {"decoder.layers.3.self_attention.linear_proj.weight", ParamRole::kAttention, 1,
       FusedKind::kNone, true},
      {"decoder.layers.3.mlp.linear_fc1.weight", ParamRole::kMlp, 0, FusedKind::kGatedFc1, true},
      {"decoder.layers.3.mlp.linear_fc2.weight", ParamRole::kMlp, 1, FusedKind::kNone, true},
  };
  for (const Expect& e : expects) {
    SCOPED_TRACE(e.name);
    const ParamSpec& p = params.at(e.name);
    EXPECT_EQ(p.role, e.role);
    EXPECT_EQ(p.tp_dim, e.tp_dim);
    EXPECT_EQ(p.fused, e.fused);
    EXPECT_EQ(p.uses_matrix_optimizer(), e.matrix);
  }
}

TEST(ParametersTest, MoeShapesAndRoles) {
  struct Row {
    const char* name;
    Shape qkv, proj, router, fc1, fc2, gate, down;
  };
  const Row rows[] = {
      {"qwen3-30b-a3b",
       {5120, 2048},
       {2048, 4096},
       {128, 2048},
       {1536, 2048},
       {2048, 768},
       {768, 2048},
       {2048, 768}},
      {"qwen3-235b-a22b",
       {9216, 4096},
       {4096, 8192},
       {128, 4096},
       {3072, 4096},
       {4096, 1536},
       {1536, 4096},
       {4096, 1536}},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    const ModelSpec& m = find_model(r.name);
    const auto meg = by_name(parameters(m, ParamLayout::kMegatron));
    const std::string pre = "decoder.layers.5.";
    EXPECT_EQ(meg.at(pre + "self_attention.linear_qkv.weight").shape, r.qkv);
    EXPECT_EQ(meg.at(pre + "self_attention.linear_proj.weight").shape, r.proj);
    const ParamSpec& router = meg.at(pre + "mlp.router.weight");
    EXPECT_EQ(router.shape, r.router);
    EXPECT_EQ(router.role, ParamRole::kRouter);
    EXPECT_EQ(router.tp_dim, -1);
    EXPECT_FALSE(router.uses_matrix_optimizer());
    EXPECT_EQ(meg.at(pre + "pre_mlp_layernorm.weight").shape, (Shape{m.hidden_size}));
    for (int e : {0, 77, 127}) {
      const ParamSpec& fc1 = meg.at(pre + "mlp.experts.linear_fc1.weight" + std::to_string(e));
      const ParamSpec& fc2 = meg.at(pre + "mlp.experts.linear_fc2.weight" + std::to_string(e));
      EXPECT_EQ(fc1.shape, r.fc1);
      EXPECT_EQ(fc2.shape, r.fc2);
      EXPECT_EQ(fc1.role, ParamRole::kExpert);
      EXPECT_EQ(fc1.expert, e);
      EXPECT_EQ(fc1.fused, FusedKind::kGatedFc1);
      EXPECT_EQ(fc1.tp_dim, 0);
      EXPECT_EQ(fc2.tp_dim, 1);
      EXPECT_TRUE(fc1.uses_matrix_optimizer());
      EXPECT_TRUE(fc2.uses_matrix_optimizer());
    }
    EXPECT_EQ(meg.count(pre + "mlp.linear_fc1.weight"), 0U);
    EXPECT_EQ(meg.size(), static_cast<std::size_t>(m.num_layers * (7 + 2 * 128) + 3));

    const auto hf = by_name(parameters(m, ParamLayout::kHuggingFace));
    const std::string hpre = "model.layers.5.mlp.";
    EXPECT_EQ(hf.at(hpre + "gate.weight").shape, r.router);
    EXPECT_EQ(hf.at(hpre + "gate.weight").role, ParamRole::kRouter);
    EXPECT_EQ(hf.at(hpre + "experts.127.gate_proj.weight").shape, r.gate);
    EXPECT_EQ(hf.at(hpre + "experts.127.up_proj.weight").shape, r.gate);
    EXPECT_EQ(hf.at(hpre + "experts.127.down_proj.weight").shape, r.down);
    EXPECT_EQ(hf.size(), static_cast<std::size_t>(m.num_layers * (9 + 3 * 128) + 3));
  }
}

TEST(ParametersTest, LayoutNamesRoundTrip) {
  EXPECT_EQ(to_string(ParamRole::kOutputHead), "output_head");
  EXPECT_EQ(to_string(ParamRole::kExpert), "expert");
  EXPECT_EQ(parse_param_layout("Megatron"), ParamLayout::kMegatron);
  EXPECT_EQ(parse_param_layout("hf"), ParamLayout::kHuggingFace);
  EXPECT_EQ(parse_param_layout(to_string(ParamLayout::kHuggingFace)), ParamLayout::kHuggingFace);
  EXPECT_THROW(parse_param_layout("deepspeed"), ConfigError);
}

}  // namespace
}  // namespace canzona::model
