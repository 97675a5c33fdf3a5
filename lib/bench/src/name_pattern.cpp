// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/bench/name_pattern.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <re2/re2.h>

namespace canzona::bench {
namespace {

// What RE2 may spend compiling one pattern: ample for any filter, and a hard stop for
// pathological ones (large counted repetitions such as `(a{1000}){1000}`).
constexpr std::int64_t kMaxCompiledBytes = 8 << 20;

}  // namespace

NamePattern::NamePattern(std::string_view pattern, std::string_view flag) : text_(pattern) {
  if (pattern.size() > kMaxNamePatternBytes) {
    throw ConfigError(fmt::format(
        "{}: the pattern has {} bytes, more than the {} a filter of benchmark names may have; "
        "select fewer names or use a shorter pattern",
        flag, pattern.size(), kMaxNamePatternBytes));
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(kMaxCompiledBytes);
  compiled_ = std::make_unique<RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!compiled_->ok()) {
    const std::string shown =
        pattern.size() > 80 ? std::string(pattern.substr(0, 77)) + "..." : std::string(pattern);
    throw ConfigError(
        fmt::format("{} '{}': not a valid pattern ({}); patterns are RE2 regular expressions (see "
                    "--benchmark_list_tests or `canzona-bench run --list` for the names)",
                    flag, shown, compiled_->error()));
  }
}

NamePattern::~NamePattern() = default;
NamePattern::NamePattern(NamePattern&&) noexcept = default;
NamePattern& NamePattern::operator=(NamePattern&&) noexcept = default;

bool NamePattern::matches(std::string_view name) const {
  return RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *compiled_);
}

}  // namespace canzona::bench
