// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What every fuzz target asserts: a parser of user files either returns a value or throws
// canzona::ConfigError (bad input, exit code 2). Any other exception is a bug (the CLI would
// report it as an internal error, exit 3) and aborts the run so libFuzzer keeps the input; a
// crash, leak or undefined behaviour is caught by the sanitizers.
#pragma once

#include <canzona/core/error.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

namespace canzona::fuzz {

/// Runs `parse` on the input and enforces the contract above.
template <typename Parse>
void expect_value_or_config_error(const char* target, Parse&& parse) {
  try {
    parse();
  } catch (const ConfigError&) {
    // The expected answer to bad input.
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: an exception other than ConfigError escaped: %s\n", target, e.what());
    std::abort();
  }
}

inline std::string_view as_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace canzona::fuzz
