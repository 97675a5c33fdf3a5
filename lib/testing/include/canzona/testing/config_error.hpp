// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What bad input says: the message of the ConfigError a call throws.
#pragma once

#include <canzona/core/error.hpp>

#include <functional>
#include <string>

namespace canzona::testing {

/// The message of the ConfigError `f` throws, "" when it throws none (other exceptions pass).
inline std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace canzona::testing
