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

}  // namespace canzona::model
