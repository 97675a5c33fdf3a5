// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The built-in Qwen3 catalog (original April-2025 checkpoints) and lookup by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "canzona/model/spec.hpp"

namespace canzona::model {

/// Qwen3-0.6B, 1.7B, 4B, 8B, 14B, 32B, 30B-A3B and 235B-A22B, in that order, with the
/// hyper-parameters of the published config.json files. The -2507 refreshes differ only in
/// rope_theta and max_position_embeddings (shapes are identical) and are not listed.
const std::vector<ModelSpec>& catalog();

/// The catalog entry whose name or display name equals `name`, ignoring case ("Qwen3-32B",
/// "qwen3-32b"). Throws ConfigError listing the valid names when there is none.
const ModelSpec& find_model(std::string_view name);

/// Catalog names in catalog order ("qwen3-0.6b", …).
std::vector<std::string> model_names();

/// A Qwen3-*shaped* model small enough for a CPU to step: every width of `base` (hidden size,
/// intermediate and MoE intermediate size, head_dim, vocabulary) divided by `factor`, every count
/// (layers, heads, KV heads, experts, top-k) kept. So the model has the same parameters as the
/// original, each matrix keeps its aspect ratio (a Newton–Schulz step costs 1/factor³ of the
/// original's), and every TP degree up to 8 valid for the original stays valid. Named
/// "<name>~d<factor>" ("qwen3-8b~d16", display "Qwen3-8B~d16"). ConfigError when factor < 2,
/// does not divide a width, or would leave an intermediate width that a TP degree the original
/// allows no longer divides (the message names the width and what to do).
ModelSpec scaled_model(const ModelSpec& base, std::int64_t factor);

/// The model a name denotes: a catalog name, optionally followed by "~d<factor>" for
/// scaled_model (case-insensitive: "qwen3-32b", "Qwen3-8B~d16"). ConfigError listing the valid
/// names, or saying what is wrong with the suffix.
ModelSpec model_from_name(std::string_view name);

}  // namespace canzona::model
