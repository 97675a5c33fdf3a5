// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/error.hpp"

#include <fmt/format.h>

namespace canzona::detail {

void throw_check_failure(const char* expr, const std::string& message, const char* file, int line) {
  throw Error(fmt::format("internal check failed: {} ({}) at {}:{}", message, expr, file, line));
}

}  // namespace canzona::detail
