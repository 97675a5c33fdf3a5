// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// JSON model specs: validation with what / where / how-to-fix messages, and serialisation.
#include "canzona/model/json.hpp"

#include <canzona/core/error.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/io/json_text.hpp>

#include <fmt/format.h>

#include <optional>

namespace canzona::model {
namespace {

// Larger than any real model's dimension by orders of magnitude; keeps every product of two
// sizes (and the totals) far inside int64.
constexpr std::int64_t kMaxSize = std::int64_t{1} << 24;

class Reader {
 public:
  Reader(const nlohmann::json& json, std::string_view source) : json_(json), source_(source) {}

  [[noreturn]] void fail(std::string_view key, const std::string& problem,
                         const std::string& fix) const {
    throw ConfigError(fmt::format("model spec {}: key '{}' {}; {}", source_, key, problem, fix));
  }

  const nlohmann::json* find(std::string_view key) const {
    auto it = json_.find(std::string(key));
    return it == json_.end() || it->is_null() ? nullptr : &*it;
  }

  // Positive integer (1 .. kMaxSize); `min` 0 allows zero.
  std::optional<std::int64_t> integer(std::string_view key, bool required,
                                      std::int64_t min = 1) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) {
      if (required) {
        fail(key, "is missing", fmt::format("add \"{}\": <integer> (HF config.json name)", key));
      }
      return std::nullopt;
    }
    if (!v->is_number_integer()) {
      fail(key, fmt::format("must be an integer, got {} ({})", v->type_name(), v->dump()),
           fmt::format("write it as a JSON integer, e.g. \"{}\": 128", key));
    }
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxSize)) {
      fail(key, fmt::format("is {}, implausibly large (limit {})", v->dump(), kMaxSize),
           "check the value");
    }
    const auto value = v->get<std::int64_t>();
    if (value < min) {
      fail(key,
           fmt::format("must be {} but is {}", min == 0 ? "zero or positive" : "positive", value),
           fmt::format("set it to a value >= {}", min));
    }
    if (value > kMaxSize) {
      fail(key, fmt::format("is {}, implausibly large (limit {})", value, kMaxSize),
           "check the value");
    }
    return value;
  }

  double positive_number(std::string_view key, double fallback) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) {
      return fallback;
    }
    if (!v->is_number()) {
      fail(key, fmt::format("must be a number, got {} ({})", v->type_name(), v->dump()),
           fmt::format("write it as a JSON number, e.g. \"{}\": {}", key, fallback));
    }
    const auto value = v->get<double>();
    if (!(value > 0.0)) {
      fail(key, fmt::format("must be positive but is {}", value), "set it to a value > 0");
    }
    return value;
  }

  bool boolean(std::string_view key, bool fallback) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) {
      return fallback;
    }
    if (!v->is_boolean()) {
      fail(key, fmt::format("must be true or false, got {} ({})", v->type_name(), v->dump()),
           fmt::format("write \"{}\": true or false", key));
    }
    return v->get<bool>();
  }

  std::optional<std::string> string(std::string_view key) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    if (!v->is_string()) {
      fail(key, fmt::format("must be a string, got {} ({})", v->type_name(), v->dump()),
           fmt::format("write \"{}\": \"my-model\"", key));
    }
    return v->get<std::string>();
  }

 private:
  const nlohmann::json& json_;
  std::string_view source_;
};

// Each size is at most kMaxSize, but their products are not: a spec at the limits describes
// ~2^72 parameters and 2^24 layers. What is built from a spec (parameter lists, ZeRO-1 buckets,
// plans) grows with these totals, so they are bounded here, before anything is allocated.
constexpr long double kMaxParams = 0x1p42L;        // 4.4e12: ~19x Qwen3-235B-A22B
constexpr long double kMaxTensors = 0x1p20L;       // 1,048,576: ~28x Qwen3-235B-A22B
constexpr long double kTensorsPerDenseLayer = 11;  // q k v o, q/k norms, 2 norms, gate up down
constexpr long double kTensorsPerMoeLayer = 9;     // attention, norms and the router

void check_totals(const ModelSpec& s, std::string_view source) {
  const long double h = s.hidden_size, d = s.head_dim, layers = s.num_layers;
  const long double attention = h * d * 2 * (s.num_heads + s.num_kv_heads);
  const long double mlp = s.num_experts > 0
                              ? s.num_experts * (h + 3.0L * h * s.moe_intermediate_size)
                              : 3.0L * h * s.intermediate_size;
  const long double params = layers * (attention + mlp + 2 * h + 2 * d) +
                             (s.tie_word_embeddings ? 1 : 2) * h * s.vocab_size + h;
  if (params > kMaxParams) {
    throw ConfigError(fmt::format(
        "model spec {}: describes {:.3g} parameters; at most {:.3g} (2^42) fit the plans and "
        "buffers this library builds; check hidden_size, intermediate_size, num_hidden_layers, "
        "vocab_size and num_experts",
        source, static_cast<double>(params), static_cast<double>(kMaxParams)));
  }
  const long double tensors =
      layers *
          (s.num_experts > 0 ? kTensorsPerMoeLayer + 3.0L * s.num_experts : kTensorsPerDenseLayer) +
      3;
  if (tensors > kMaxTensors) {
    throw ConfigError(fmt::format(
        "model spec {}: {} layers of {} tensors each make {:.3g} parameter tensors; at most "
        "{:.0f} (2^20) fit; check num_hidden_layers and num_experts",
        source, s.num_layers,
        static_cast<double>(s.num_experts > 0 ? kTensorsPerMoeLayer + 3.0L * s.num_experts
                                              : kTensorsPerDenseLayer),
        static_cast<double>(tensors), static_cast<double>(kMaxTensors)));
  }
}

std::string lowercase(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return text;
}

}  // namespace

ModelSpec model_spec_from_json(const nlohmann::json& json, std::string_view source) {
  if (!json.is_object()) {
    throw ConfigError(fmt::format(
        "model spec {}: the top level must be a JSON object of hyper-parameters, got {}; see "
        "lib/model/README.md for the schema",
        source, json.type_name()));
  }
  const Reader r(json, source);
  ModelSpec spec;
  // name: optional, because HF config.json files carry none; "_name_or_path" is what HF writes.
  std::string name = r.string("name").value_or(r.string("_name_or_path").value_or("custom"));
  if (name.empty()) {
    r.fail("name", "is empty", "give the model a name, e.g. \"name\": \"my-model\"");
  }
  spec.display_name = r.string("display_name").value_or(name);
  spec.name = lowercase(std::move(name));
  spec.hidden_size = *r.integer("hidden_size", true);
  spec.intermediate_size = *r.integer("intermediate_size", true);
  spec.num_layers = *r.integer("num_hidden_layers", true);
  spec.num_heads = *r.integer("num_attention_heads", true);
  spec.num_kv_heads = *r.integer("num_key_value_heads", true);
  spec.head_dim = *r.integer("head_dim", true);
  spec.vocab_size = *r.integer("vocab_size", true);
  spec.tie_word_embeddings = r.boolean("tie_word_embeddings", false);
  spec.rms_norm_eps = r.positive_number("rms_norm_eps", 1e-6);
  spec.rope_theta = r.positive_number("rope_theta", 1e6);
  spec.max_position_embeddings = r.integer("max_position_embeddings", false).value_or(40960);

  if (spec.num_heads % spec.num_kv_heads != 0) {
    r.fail("num_attention_heads",
           fmt::format("({}) is not divisible by num_key_value_heads ({})", spec.num_heads,
                       spec.num_kv_heads),
           "GQA needs a whole number of query heads per KV head; fix one of the two");
  }

  spec.num_experts = r.integer("num_experts", false, 0).value_or(0);
  if (spec.num_experts > 0) {
    spec.moe_intermediate_size = *r.integer("moe_intermediate_size", true);
    spec.experts_per_token = *r.integer("num_experts_per_tok", true);
    if (spec.experts_per_token > spec.num_experts) {
      r.fail("num_experts_per_tok",
             fmt::format("({}) exceeds num_experts ({})", spec.experts_per_token, spec.num_experts),
             "top-k routing picks at most num_experts experts");
    }
    // Only "every layer is MoE" is modelled; refuse configs that mix in dense layers.
    if (const nlohmann::json* v = r.find("mlp_only_layers");
        v != nullptr && !(v->is_array() && v->empty())) {
      r.fail("mlp_only_layers",
             fmt::format("is {}, but dense layers inside an MoE model are not "
                         "supported",
                         v->dump()),
             "remove it or set it to []");
    }
    if (r.integer("decoder_sparse_step", false).value_or(1) != 1) {
      r.fail("decoder_sparse_step", "is not 1, but only all-MoE models are supported",
             "set it to 1");
    }
  }
  check_totals(spec, source);
  return spec;
}

ModelSpec model_spec_from_json_text(std::string_view text, std::string_view source) {
  return model_spec_from_json(
      io::parse_json_text(text, fmt::format("model spec {}", source), "fix the syntax"), source);
}

ModelSpec load_model_spec(const std::filesystem::path& path) {
  return model_spec_from_json_text(io::read_input_file(path, "model spec"), path.string());
}

void to_json(nlohmann::json& json, const ModelSpec& spec) {
  json = nlohmann::json{
      {"name", spec.name},
      {"display_name", spec.display_name},
      {"hidden_size", spec.hidden_size},
      {"intermediate_size", spec.intermediate_size},
      {"num_hidden_layers", spec.num_layers},
      {"num_attention_heads", spec.num_heads},
      {"num_key_value_heads", spec.num_kv_heads},
      {"head_dim", spec.head_dim},
      {"vocab_size", spec.vocab_size},
      {"tie_word_embeddings", spec.tie_word_embeddings},
      {"rms_norm_eps", spec.rms_norm_eps},
      {"rope_theta", spec.rope_theta},
      {"max_position_embeddings", spec.max_position_embeddings},
      {"num_experts", spec.num_experts},
      {"moe_intermediate_size", spec.moe_intermediate_size},
      {"num_experts_per_tok", spec.experts_per_token},
      {"params",
       {{"total", spec.total_params()},
        {"non_embedding", spec.non_embedding_params()},
        {"active", spec.active_params()},
        {"per_layer", spec.params_per_layer()}}},
  };
}

void to_json(nlohmann::json& json, const ParamSpec& param) {
  json = nlohmann::json{
      {"name", param.name},
      {"shape", param.shape},
      {"numel", param.numel()},
      {"role", to_string(param.role)},
      {"tp_dim", param.tp_dim},
      {"layer", param.layer},
      {"expert", param.expert},
      {"fused", to_string(param.fused)},
      {"matrix_optimizer", param.uses_matrix_optimizer()},
  };
}

void to_json(nlohmann::json& json, const RowRange& range) {
  json = nlohmann::json::array({range.begin, range.end});
}

void to_json(nlohmann::json& json, const Fragment& fragment) {
  json = nlohmann::json{
      {"name", fragment.name},   {"kind", to_string(fragment.kind)},
      {"index", fragment.index}, {"shape", fragment.shape},
      {"rows", fragment.rows},
  };
}

}  // namespace canzona::model
