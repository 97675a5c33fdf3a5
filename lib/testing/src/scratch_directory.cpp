// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/testing/scratch_directory.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace canzona::testing {

std::filesystem::path make_scratch_directory(std::string_view prefix) {
  const std::string pattern =
      (std::filesystem::temp_directory_path() / fmt::format("{}-XXXXXX", prefix)).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) {
    throw std::runtime_error(
        fmt::format("cannot create a scratch folder {}: {}", pattern, std::strerror(errno)));
  }
  return std::filesystem::path(name.data());
}

}  // namespace canzona::testing
