// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/model/model_argument.hpp"

#include "canzona/model/catalog.hpp"
#include "canzona/model/json.hpp"

#include <filesystem>

namespace canzona::model {

ModelSpec resolve_model(const std::string& value) {
  const bool looks_like_file = value.ends_with(".json") || value.find('/') != std::string::npos ||
                               std::filesystem::is_regular_file(value);
  if (looks_like_file) return load_model_spec(value);
  return model_from_name(value);  // ConfigError lists the catalog names
}

}  // namespace canzona::model
