// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/comm/timeout.hpp"

#include <canzona/core/error.hpp>
#include <canzona/core/numeric_text.hpp>

#include <atomic>
#include <cstdlib>

namespace canzona::comm {
namespace {

constexpr const char* kVariable = "CANZONA_COLLECTIVE_TIMEOUT_S";

std::atomic<double>& override_seconds() {
  static std::atomic<double> seconds{-1};
  return seconds;
}

}  // namespace

double parse_collective_timeout(std::string_view text) {
  return parse_real(kVariable, text, RealRange{0, kMaxCollectiveTimeoutSeconds, false});
}

double collective_timeout_from_environment() {
  const char* text = std::getenv(kVariable);
  if (text == nullptr || *text == '\0') return kDefaultCollectiveTimeoutSeconds;
  return parse_collective_timeout(text);
}

std::chrono::duration<double> collective_timeout() {
  const double overridden = override_seconds().load(std::memory_order_relaxed);
  if (overridden >= 0) return std::chrono::duration<double>(overridden);
  static const double seconds = collective_timeout_from_environment();
  return std::chrono::duration<double>(seconds);
}

void set_collective_timeout(double seconds) {
  CANZONA_CHECK(seconds <= kMaxCollectiveTimeoutSeconds, "collective timeout beyond 1e9 s");
  override_seconds().store(seconds, std::memory_order_relaxed);
}

}  // namespace canzona::comm
