// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/io/json_text.hpp>

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::io {

nlohmann::json parse_json_text(std::string_view text, std::string_view what, std::string_view fix) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not valid JSON: {}; {}", what, e.what(), fix));
  }
}

}  // namespace canzona::io
