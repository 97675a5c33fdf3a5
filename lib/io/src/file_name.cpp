// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/io/file_name.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace canzona::io {

std::string checked_file_name(std::string_view name, std::string_view what) {
  constexpr std::size_t kMaxBytes = 255;  // NAME_MAX of the common Linux file systems
  const bool control = std::any_of(name.begin(), name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (name.empty() || name.size() > kMaxBytes || name.find('/') != std::string_view::npos ||
      name == "." || name == ".." || name.starts_with('-') || control) {
    // Shown with its escapes: a name with a newline must not split the message.
    throw ConfigError(fmt::format(
        "{} {:?} is not a plain file name: it must be one path component (no '/', not '.' or "
        "'..', no control characters, not starting with '-', 1 to {} bytes)",
        what, name, kMaxBytes));
  }
  return std::string(name);
}

}  // namespace canzona::io
