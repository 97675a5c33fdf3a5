// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/comm/timeout.hpp"

#include <canzona/core/numeric_text.hpp>

#include <atomic>
#include <cstdlib>
#include <limits>

namespace canzona::comm {
namespace {

constexpr const char* kVariable = "CANZONA_COLLECTIVE_TIMEOUT_S";

double from_environment() {
  const char* text = std::getenv(kVariable);
  if (text == nullptr || *text == '\0') return kDefaultCollectiveTimeoutSeconds;
  return parse_real(kVariable, text, RealRange{0, std::numeric_limits<double>::max(), false});
}

std::atomic<double>& override_seconds() {
  static std::atomic<double> seconds{-1};
  return seconds;
}

}  // namespace

std::chrono::duration<double> collective_timeout() {
  const double overridden = override_seconds().load(std::memory_order_relaxed);
  if (overridden >= 0) return std::chrono::duration<double>(overridden);
  static const double seconds = from_environment();
  return std::chrono::duration<double>(seconds);
}

void set_collective_timeout(double seconds) {
  override_seconds().store(seconds, std::memory_order_relaxed);
}

}  // namespace canzona::comm
