// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "number_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace canzona::harness {
namespace {

// Fixed-point with `digits` significant digits for values from 1e-6 up; large values keep all
// their integer digits.
std::string significant(double value, int digits) {
  if (!std::isfinite(value)) return value > 0 ? "inf" : (value < 0 ? "-inf" : "nan");
  if (value == 0.0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(value))));
  const int decimals = std::clamp(digits - 1 - magnitude, 0, 6);
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace

std::string format_ms(double ms) { return significant(ms, 4); }

std::string format_change(double relative) {
  if (!std::isfinite(relative)) return "n/a";
  return fmt::format("{:+.1f}%", relative * 100.0);
}

std::string format_percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100.0); }

std::string format_ratio(double ratio) { return fmt::format("{:.2f}×", ratio); }

std::string format_mib(double bytes) { return significant(bytes / (1024.0 * 1024.0), 4); }

}  // namespace canzona::harness
