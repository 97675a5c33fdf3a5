// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// JSON model specs: round trips of the catalog, HF config.json input, and bad specs whose errors
// must name the key and the problem.
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace canzona::model {
namespace {

// Qwen3-8B's config.json as published (extra keys included; they must be ignored).
constexpr const char* kQwen3_8BConfig = R"({
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 12288,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
})";

TEST(ModelJsonTest, CatalogRoundTripsThroughJson) {
  for (const ModelSpec& m : catalog()) {
    SCOPED_TRACE(m.name);
    const nlohmann::json j = m;
    EXPECT_EQ(j.at("params").at("total").get<std::int64_t>(), m.total_params());
    const ModelSpec back = model_spec_from_json(j, "<round trip>");
    EXPECT_EQ(back, m);
    EXPECT_EQ(back.total_params(), m.total_params());
    const ModelSpec text = model_spec_from_json_text(j.dump(2), "<text>");
    EXPECT_EQ(text, m);
  }
}

TEST(ModelJsonTest, HuggingFaceConfigLoadsAsIs) {
  ModelSpec spec = model_spec_from_json_text(kQwen3_8BConfig, "config.json");
  EXPECT_EQ(spec.name, "custom");
  EXPECT_EQ(spec.total_params(), 8'190'735'360);
  spec.name = "qwen3-8b";
  spec.display_name = "Qwen3-8B";
  EXPECT_EQ(spec, find_model("qwen3-8b"));
}

TEST(ModelJsonTest, MoeConfigAndOptionalDefaults) {
  const ModelSpec spec =
      model_spec_from_json(nlohmann::json{{"name", "My-MoE"},
                                          {"hidden_size", 2048},
                                          {"intermediate_size", 6144},
                                          {"num_hidden_layers", 48},
                                          {"num_attention_heads", 32},
                                          {"num_key_value_heads", 4},
                                          {"head_dim", 128},
                                          {"vocab_size", 151936},
                                          {"num_experts", 128},
                                          {"moe_intermediate_size", 768},
                                          {"num_experts_per_tok", 8},
                                          {"decoder_sparse_step", 1},
                                          {"mlp_only_layers", nlohmann::json::array()}},
                           "<inline>");
  EXPECT_EQ(spec.name, "my-moe");
  EXPECT_EQ(spec.display_name, "My-MoE");
  EXPECT_EQ(spec.total_params(), 30'532'122'624);
  EXPECT_FALSE(spec.tie_word_embeddings);
  EXPECT_EQ(spec.rms_norm_eps, 1e-6);
  EXPECT_EQ(spec.rope_theta, 1e6);
  EXPECT_EQ(spec.max_position_embeddings, 40960);
}

TEST(ModelJsonTest, LoadsFromFile) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "canzona_model_spec.json";
  {
    std::ofstream out(path);
    out << kQwen3_8BConfig;
  }
  const ModelSpec spec = load_model_spec(path);
  EXPECT_EQ(spec.total_params(), 8'190'735'360);
  std::filesystem::remove(path);
}

// Base spec every bad case edits.
nlohmann::json valid_spec() { return nlohmann::json::parse(kQwen3_8BConfig); }

void expect_error(const nlohmann::json& spec, const std::string& key, const std::string& problem) {
  try {
    model_spec_from_json(spec, "bad.json");
    ADD_FAILURE() << "expected ConfigError for " << key;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("bad.json"), std::string::npos) << what;
    EXPECT_NE(what.find("'" + key + "'"), std::string::npos) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << what;
  }
}

TEST(ModelJsonTest, BadSpecsNameTheKeyAndProblem) {
  {
    auto j = valid_spec();
    j.erase("hidden_size");
    expect_error(j, "hidden_size", "is missing");
  }
  {
    auto j = valid_spec();
    j.erase("head_dim");  // never derived from hidden_size / heads
    expect_error(j, "head_dim", "is missing");
  }
  {
    auto j = valid_spec();
    j["vocab_size"] = -5;
    expect_error(j, "vocab_size", "must be positive but is -5");
  }
  {
    auto j = valid_spec();
    j["num_attention_heads"] = 0;
    expect_error(j, "num_attention_heads", "must be positive but is 0");
  }
  {
    auto j = valid_spec();
    j["num_attention_heads"] = 10;
    j["num_key_value_heads"] = 4;
    expect_error(j, "num_attention_heads", "not divisible by num_key_value_heads");
  }
  {
    auto j = valid_spec();
    j["head_dim"] = "128";
    expect_error(j, "head_dim", "must be an integer, got string");
  }
  {
    auto j = valid_spec();
    j["hidden_size"] = 4096.5;
    expect_error(j, "hidden_size", "must be an integer, got number");
  }
  {
    auto j = valid_spec();
    j["tie_word_embeddings"] = "yes";
    expect_error(j, "tie_word_embeddings", "must be true or false");
  }
  {
    auto j = valid_spec();
    j["rms_norm_eps"] = -1e-6;
    expect_error(j, "rms_norm_eps", "must be positive");
  }
  {
    auto j = valid_spec();
    j["num_experts"] = 8;
    j["moe_intermediate_size"] = 768;
    j["num_experts_per_tok"] = 9;
    expect_error(j, "num_experts_per_tok", "exceeds num_experts");
  }
  {
    auto j = valid_spec();
    j["num_experts"] = 8;
    j["num_experts_per_tok"] = 2;
    expect_error(j, "moe_intermediate_size", "is missing");
  }
  {
    auto j = valid_spec();
    j["num_experts"] = 8;
    j["moe_intermediate_size"] = 768;
    j["num_experts_per_tok"] = 2;
    j["mlp_only_layers"] = {0, 3};
    expect_error(j, "mlp_only_layers", "not supported");
  }
  {
    auto j = valid_spec();
    j["intermediate_size"] = std::int64_t{1} << 40;
    expect_error(j, "intermediate_size", "implausibly large");
  }
}

TEST(ModelJsonTest, MalformedJsonReportsPosition) {
  try {
    model_spec_from_json_text("{\n  \"hidden_size\": 1024,,\n}", "broken.json");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken.json"), std::string::npos) << what;
    EXPECT_NE(what.find("not valid JSON"), std::string::npos) << what;
    EXPECT_NE(what.find("line 2"), std::string::npos) << what;
  }
  EXPECT_THROW(model_spec_from_json_text("[1, 2]", "array.json"), ConfigError);
}

TEST(ModelJsonTest, MissingFileIsConfigError) {
  const auto path = std::filesystem::path(::testing::TempDir()) / "no_such_canzona_spec.json";
  try {
    load_model_spec(path);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no_such_canzona_spec.json"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot open"), std::string::npos) << what;
  }
}

TEST(ModelJsonTest, ParamSpecAndFragmentToJson) {
  const ModelSpec& m = find_model("qwen3-8b");
  const auto params = parameters(m, ParamLayout::kMegatron);
  const nlohmann::json p = params.at(3);
  EXPECT_EQ(p.at("name"), "decoder.layers.0.self_attention.linear_qkv.weight");
  EXPECT_EQ(p.at("shape"), nlohmann::json::array({6144, 4096}));
  EXPECT_EQ(p.at("numel"), 6144 * 4096);
  EXPECT_EQ(p.at("role"), "attention");
  EXPECT_EQ(p.at("tp_dim"), 0);
  EXPECT_EQ(p.at("layer"), 0);
  EXPECT_EQ(p.at("fused"), "qkv");
  EXPECT_EQ(p.at("matrix_optimizer"), true);
  const nlohmann::json f = split_qkv(params.at(3), m, false).at(1);
  EXPECT_EQ(f.at("kind"), "key");
  EXPECT_EQ(f.at("rows").size(), 8U);
  EXPECT_EQ(f.at("rows").at(0), nlohmann::json::array({512, 640}));
}

}  // namespace
}  // namespace canzona::model
