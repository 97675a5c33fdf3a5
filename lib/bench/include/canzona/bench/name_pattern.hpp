// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one rule for a pattern a user gives over benchmark names: `--filter` of run, ab, table,
// compare and plot, the allow-list of ab, and the suites' `--benchmark_filter`. Patterns are RE2
// (the Perl-like syntax ECMAScript filters already use) and are matched by RE2, whose time is
// linear in the name: no pattern can hang a command (`(.*.*)*X` backtracks for minutes in
// std::regex) or overflow its stack (20 000 nested parentheses). A pattern longer than
// kMaxNamePatternBytes, nested deeper than RE2 allows, or compiling to more than its memory
// bound is refused with a ConfigError that names the flag.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace canzona::bench {

/// Long enough for every name of a preset as one alternation (ab's re-measuring filter).
inline constexpr std::size_t kMaxNamePatternBytes = 1 << 16;

class NamePattern {
 public:
  /// Compiles `pattern`; ConfigError naming `flag` when it is too long or not a valid pattern.
  NamePattern(std::string_view pattern, std::string_view flag);
  ~NamePattern();
  NamePattern(NamePattern&&) noexcept;
  NamePattern& operator=(NamePattern&&) noexcept;

  /// True when the pattern matches somewhere in `name` (a search, as grep and Google Benchmark
  /// do: anchor with ^ and $ for a whole name).
  bool matches(std::string_view name) const;
  /// The pattern as given.
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::unique_ptr<re2::RE2> compiled_;
};

}  // namespace canzona::bench
