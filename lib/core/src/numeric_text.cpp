// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/numeric_text.hpp"

#include "canzona/core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace canzona {
namespace {

constexpr std::int64_t kIntMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kIntMax = std::numeric_limits<std::int64_t>::max();
constexpr double kRealMax = std::numeric_limits<double>::max();

std::string trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return std::string(text);
}

// Shortest readable form: 1e+308 rather than 309 digits, 0.5 rather than 0.500000.
std::string real_text(double value) { return fmt::format("{:g}", value); }

}  // namespace

std::string describe(const IntegerRange& r) {
  if (r.min != kIntMin && r.max != kIntMax) {
    return fmt::format("an integer in [{}, {}]", r.min, r.max);
  }
  if (r.min != kIntMin) return fmt::format("an integer >= {}", r.min);
  if (r.max != kIntMax) return fmt::format("an integer <= {}", r.max);
  return "an integer";
}

std::string describe(const RealRange& r) {
  const bool low = r.min > -kRealMax;
  const bool high = r.max < kRealMax;
  if (low && high) {
    return fmt::format("a number in {}{}, {}]", r.min_open ? "(" : "[", real_text(r.min),
                       real_text(r.max));
  }
  if (low) return fmt::format("a finite number {} {}", r.min_open ? ">" : ">=", real_text(r.min));
  if (high) return fmt::format("a finite number <= {}", real_text(r.max));
  return "a finite number";
}

std::optional<std::string> integer_range_error(std::string_view text, const IntegerRange& range) {
  const std::string value = trimmed(text);
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(begin, &end, 10);
  if (value.empty() || end != begin + value.size()) {
    // A real number where an integer belongs deserves its own hint.
    char* real_end = nullptr;
    std::strtod(begin, &real_end);
    if (!value.empty() && real_end == begin + value.size()) {
      return fmt::format("{} is not a whole number; expected {}", value, describe(range));
    }
    return fmt::format("'{}' is not an integer; expected {}", value, describe(range));
  }
  if (errno == ERANGE || parsed < range.min || parsed > range.max) {
    return fmt::format("{} is out of range; expected {}", value, describe(range));
  }
  return std::nullopt;
}

std::optional<std::string> real_range_error(std::string_view text, const RealRange& range) {
  const std::string value = trimmed(text);
  const char* begin = value.c_str();
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(begin, &end);
  if (value.empty() || end != begin + value.size()) {
    return fmt::format("'{}' is not a number; expected {}", value, describe(range));
  }
  // strtod accepts "nan", "inf" and overflowing literals such as 1e999 (as inf); an underflow
  // to zero or a denormal is a number all the same.
  if (std::isnan(parsed)) {
    return fmt::format("{} is not a number; expected {}", value, describe(range));
  }
  if (std::isinf(parsed)) {
    return fmt::format("{} is not finite; expected {}", value, describe(range));
  }
  const bool below = range.min_open ? !(parsed > range.min) : !(parsed >= range.min);
  if (below || !(parsed <= range.max)) {
    return fmt::format("{} is out of range; expected {}", value, describe(range));
  }
  return std::nullopt;
}

std::int64_t parse_integer(std::string_view what, std::string_view text,
                           const IntegerRange& range) {
  if (const auto error = integer_range_error(text, range)) {
    throw ConfigError(fmt::format("{}: {}", what, *error));
  }
  return std::strtoll(trimmed(text).c_str(), nullptr, 10);
}

double parse_real(std::string_view what, std::string_view text, const RealRange& range) {
  if (const auto error = real_range_error(text, range)) {
    throw ConfigError(fmt::format("{}: {}", what, *error));
  }
  return std::strtod(trimmed(text).c_str(), nullptr);
}

}  // namespace canzona
