// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/bench/flag_checks.hpp>

#include <string>

namespace canzona::bench {

CLI::Validator integer_in(IntegerRange range) {
  return CLI::Validator(
      [range](std::string& text) { return integer_range_error(text, range).value_or(""); },
      describe(range));
}

CLI::Validator real_in(RealRange range) {
  return CLI::Validator(
      [range](std::string& text) { return real_range_error(text, range).value_or(""); },
      describe(range));
}

}  // namespace canzona::bench
