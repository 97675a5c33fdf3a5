// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/testing/seed.hpp"

#include <cstdlib>
#include <random>
#include <string>

namespace canzona::testing {

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* env = std::getenv("CANZONA_TEST_SEED"); env != nullptr && *env != '\0') {
      return static_cast<std::uint64_t>(std::stoull(env));
    }
    std::random_device device;
    return (static_cast<std::uint64_t>(device()) << 32) ^ device();
  }();
  return seed;
}

}  // namespace canzona::testing
