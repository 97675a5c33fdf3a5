// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Scaled Qwen3 shapes ("qwen3-8b~d16"): widths divided, counts kept, TP degrees preserved, names.
#include <canzona/core/error.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/parameters.hpp>

#include <gtest/gtest.h>

#include <string>

namespace canzona::model {
namespace {

std::string error_of(std::string_view name) {
  try {
    model_from_name(name);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(ScaledModelTest, DividesEveryWidthAndKeepsEveryCount) {
  for (const ModelSpec& base : catalog()) {
    for (const std::int64_t factor : {2, 4, 8, 16, 32}) {
      SCOPED_TRACE(base.name + " / " + std::to_string(factor));
      const ModelSpec m = scaled_model(base, factor);
      EXPECT_EQ(m.hidden_size * factor, base.hidden_size);
      EXPECT_EQ(m.intermediate_size * factor, base.intermediate_size);
      EXPECT_EQ(m.moe_intermediate_size * factor, base.moe_intermediate_size);
      EXPECT_EQ(m.head_dim * factor, base.head_dim);
      EXPECT_EQ(m.vocab_size * factor, base.vocab_size);
      EXPECT_EQ(m.num_layers, base.num_layers);
      EXPECT_EQ(m.num_heads, base.num_heads);
      EXPECT_EQ(m.num_kv_heads, base.num_kv_heads);
      EXPECT_EQ(m.num_experts, base.num_experts);
      EXPECT_EQ(m.experts_per_token, base.experts_per_token);
      EXPECT_EQ(m.tie_word_embeddings, base.tie_word_embeddings);
      // Same parameters, each matrix's shape divided by the factor in both dimensions.
      const auto full = parameters(base, ParamLayout::kMegatron);
      const auto small = parameters(m, ParamLayout::kMegatron);
      ASSERT_EQ(full.size(), small.size());
      for (std::size_t i = 0; i < full.size(); ++i) {
        EXPECT_EQ(small[i].name, full[i].name);
        EXPECT_EQ(small[i].uses_matrix_optimizer(), full[i].uses_matrix_optimizer());
        if (full[i].uses_matrix_optimizer()) {
          EXPECT_EQ(small[i].numel() * factor * factor, full[i].numel()) << full[i].name;
        }
      }
    }
  }
}

TEST(ScaledModelTest, KeepsEveryTpDegreeOfTheFullModel) {
  for (const ModelSpec& base : catalog()) {
    for (const std::int64_t factor : {2, 4, 8, 16, 32}) {
      SCOPED_TRACE(base.name + " / " + std::to_string(factor));
      EXPECT_EQ(layout::valid_tp_values(scaled_model(base, factor), 8),
                layout::valid_tp_values(base, 8));
    }
  }
  // Qwen3-4B's intermediate 9728 = 2^9 · 19: /128 leaves 76, which tp 8 no longer divides.
  const std::string lost = error_of("qwen3-4b~d128");
  EXPECT_NE(lost.find("intermediate_size"), std::string::npos) << lost;
  EXPECT_NE(lost.find("tp 8"), std::string::npos) << lost;
}

TEST(ScaledModelTest, NameSaysItIsScaled) {
  const ModelSpec m = model_from_name("Qwen3-8B~d16");
  EXPECT_EQ(m.name, "qwen3-8b~d16");
  EXPECT_EQ(m.display_name, "Qwen3-8B~d16");
  EXPECT_EQ(m.hidden_size, 256);
  EXPECT_EQ(model_from_name("qwen3-8b~D16"), m);
  // A plain name is the catalog entry itself.
  EXPECT_EQ(model_from_name("qwen3-32b"), find_model("qwen3-32b"));
}

TEST(ScaledModelTest, BadSuffixesSayWhatIsWrong) {
  EXPECT_NE(error_of("qwen3-8b~d").find("whole number"), std::string::npos);
  EXPECT_NE(error_of("qwen3-8b~d1x").find("whole number"), std::string::npos);
  EXPECT_NE(error_of("qwen3-8b~d1").find(">= 2"), std::string::npos);
  const std::string indivisible = error_of("qwen3-8b~d3");
  EXPECT_NE(indivisible.find("not divisible by 3"), std::string::npos) << indivisible;
  EXPECT_NE(indivisible.find("2, 4, 8, 16, 32, 64, 128"), std::string::npos) << indivisible;
  EXPECT_NE(error_of("qwen3-72b~d16").find("unknown model"), std::string::npos);
}

}  // namespace
}  // namespace canzona::model
