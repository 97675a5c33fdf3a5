// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// ParallelConfig validation: each rule fails with a message that names it and the valid values.
#include <canzona/core/error.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/model/catalog.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace canzona::layout {
namespace {

model::ModelSpec tiny(std::int64_t heads, std::int64_t kv, std::int64_t ffn,
                      std::int64_t experts = 0, std::int64_t moe_ffn = 0) {
  model::ModelSpec m;
  m.name = "tiny";
  m.hidden_size = 64;
  m.intermediate_size = ffn;
  m.num_layers = 2;
  m.num_heads = heads;
  m.num_kv_heads = kv;
  m.head_dim = 16;
  m.vocab_size = 1000;
  m.num_experts = experts;
  m.moe_intermediate_size = moe_ffn;
  m.experts_per_token = experts > 0 ? 2 : 0;
  return m;
}

std::string error_of(const ParallelConfig& c, const model::ModelSpec& m) {
  try {
    validate(c, m);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected ConfigError for dp=" << c.dp << " tp=" << c.tp;
  return {};
}

TEST(ParallelConfigTest, AcceptsValidConfigs) {
  const model::ModelSpec& m = model::find_model("qwen3-32b");
  for (int tp : {1, 2, 4, 8}) {
    EXPECT_NO_THROW(validate(ParallelConfig{32, tp, 8}, m));
  }
  EXPECT_EQ((ParallelConfig{32, 8, 8}).world(), 256);
  EXPECT_EQ(valid_tp_values(m, 8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(valid_tp_values(model::find_model("qwen3-30b-a3b"), 8), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(valid_tp_values(model::find_model("qwen3-14b"), 4), (std::vector<int>{1, 2, 4}));
}

TEST(ParallelConfigTest, TpMustDivideHeads) {
  const std::string what = error_of({4, 3, 8}, model::find_model("qwen3-32b"));
  EXPECT_NE(what.find("tp=3 does not divide num_attention_heads=64"), std::string::npos) << what;
  EXPECT_NE(what.find("valid tp for this model with 8 GPUs per node: 1, 2, 4, 8"),
            std::string::npos)
      << what;
}

TEST(ParallelConfigTest, TpMustDivideKvHeads) {
  // 16 heads are divisible by 4 but 2 KV heads (query groups) are not.
  const std::string what = error_of({1, 4, 8}, tiny(16, 2, 64));
  EXPECT_NE(what.find("num_key_value_heads=2"), std::string::npos) << what;
  EXPECT_NE(what.find(": 1, 2"), std::string::npos) << what;
  // Qwen3 MoE has 4 KV heads: tp=8 is out.
  const std::string moe = error_of({1, 8, 8}, model::find_model("qwen3-235b-a22b"));
  EXPECT_NE(moe.find("num_key_value_heads=4"), std::string::npos) << moe;
}

TEST(ParallelConfigTest, TpMustDivideFfnSizes) {
  const std::string dense = error_of({2, 4, 8}, tiny(8, 4, 6));
  EXPECT_NE(dense.find("intermediate_size=6"), std::string::npos) << dense;
  const std::string moe = error_of({2, 4, 8}, tiny(8, 4, 64, 8, 6));
  EXPECT_NE(moe.find("moe_intermediate_size=6"), std::string::npos) << moe;
  EXPECT_NO_THROW(validate(ParallelConfig{2, 2, 8}, tiny(8, 4, 64, 8, 6)));
}

TEST(ParallelConfigTest, TpStaysInsideANode) {
  const std::string what = error_of({1, 16, 8}, tiny(32, 16, 64));
  EXPECT_NE(what.find("tp=16 exceeds gpus_per_node=8"), std::string::npos) << what;
  EXPECT_NO_THROW(validate(ParallelConfig{1, 16, 16}, tiny(32, 16, 64)));
}

TEST(ParallelConfigTest, DegreesMustBePositive) {
  const model::ModelSpec& m = model::find_model("qwen3-8b");
  EXPECT_NE(error_of({0, 1, 8}, m).find("dp=0"), std::string::npos);
  EXPECT_NE(error_of({-2, 1, 8}, m).find("dp=-2"), std::string::npos);
  EXPECT_NE(error_of({1, 0, 8}, m).find("tp=0"), std::string::npos);
  EXPECT_NE(error_of({1, -1, 8}, m).find("tp=-1"), std::string::npos);
  EXPECT_NE(error_of({1, 1, 0}, m).find("gpus_per_node=0"), std::string::npos);
}

TEST(ParallelConfigTest, WorldSizeMustMatch) {
  EXPECT_NO_THROW(validate_world(ParallelConfig{4, 8, 8}, 32));
  try {
    validate_world(ParallelConfig{4, 8, 8}, 31);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("dp·tp = 4·8 = 32 but the job has 31 ranks"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace canzona::layout
