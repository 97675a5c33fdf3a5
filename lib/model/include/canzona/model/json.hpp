// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// JSON for the model component: custom model specs (an HF config.json works as is) and
// nlohmann to_json for ModelSpec, ParamSpec and Fragment. Schema: lib/model/README.md.
#pragma once

#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "canzona/model/parameters.hpp"
#include "canzona/model/spec.hpp"
#include "canzona/model/split.hpp"

namespace canzona::model {

/// Builds and validates a ModelSpec from a JSON object. `source` names where it came from (a file
/// path, "<inline>") and appears in every error. Unknown keys are ignored, so an HF config.json
/// loads unchanged. Throws ConfigError naming the source, the key, the problem and the fix:
/// missing required key, wrong type, non-positive size, heads not divisible by kv heads,
/// inconsistent MoE fields, unsupported MoE sparsity (mlp_only_layers, decoder_sparse_step).
ModelSpec model_spec_from_json(const nlohmann::json& json, std::string_view source);

/// Parses JSON text (e.g. a file's contents) and calls model_spec_from_json. Malformed JSON
/// throws ConfigError with nlohmann's line/column position.
ModelSpec model_spec_from_json_text(std::string_view text, std::string_view source);

/// Reads a JSON model spec file. ConfigError when it cannot be opened or is invalid.
ModelSpec load_model_spec(const std::filesystem::path& path);

/// ModelSpec as JSON in the load schema (HF key names) plus derived counts under "params";
/// model_spec_from_json(to_json(spec)) == spec.
void to_json(nlohmann::json& json, const ModelSpec& spec);
/// name, shape, numel, role, tp_dim, layer, expert, fused, matrix_optimizer.
void to_json(nlohmann::json& json, const ParamSpec& param);
/// name, kind, index, shape, rows as [[begin, end], …].
void to_json(nlohmann::json& json, const Fragment& fragment);
void to_json(nlohmann::json& json, const RowRange& range);

}  // namespace canzona::model
