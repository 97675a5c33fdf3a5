// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/testing/gpu.hpp"

#include <cstdlib>
#include <string_view>

namespace canzona::testing {

bool gpu_required() {
  const char* env = std::getenv("CANZONA_REQUIRE_GPU");
  return env != nullptr && std::string_view(env) != "" && std::string_view(env) != "0";
}

}  // namespace canzona::testing
