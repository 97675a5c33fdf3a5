// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Numbers typed by users (command-line flags, suite flags): the one place that parses them and
// checks their range, so every numeric flag says "'abc' is not a number" or "0 is not in
// [1, 65536]" in words, never a 309-digit double limit or a silent default.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace canzona {

/// An integer or real range; a bound at the type's limit is "unbounded" and left out of messages.
struct IntegerRange {
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};
struct RealRange {
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
  bool min_open = false;  ///< (min, max] instead of [min, max]
};

/// "an integer in [1, 65536]", "an integer >= 1", "a finite number > 0", "a number in [0, 1]".
std::string describe(const IntegerRange& range);
std::string describe(const RealRange& range);

/// Why `text` is not a whole decimal integer inside `range`, or nullopt when it is. The message
/// names the value and the range, e.g. "'abc' is not an integer" or "0 is not an integer >= 1".
std::optional<std::string> integer_range_error(std::string_view text, const IntegerRange& range);

/// Why `text` is not a finite real number inside `range` (NaN and infinities are refused), or
/// nullopt when it is.
std::optional<std::string> real_range_error(std::string_view text, const RealRange& range);

/// The value of `text`; ConfigError "<what>: <reason>" when integer_range_error says why not.
std::int64_t parse_integer(std::string_view what, std::string_view text, const IntegerRange& range);
/// The value of `text`; ConfigError "<what>: <reason>" when real_range_error says why not.
double parse_real(std::string_view what, std::string_view text, const RealRange& range);

}  // namespace canzona
