// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Suite-specific flags (`--canzona_<name>=<value>`), taken out of argv by the shared main before
// Google Benchmark parses the rest, so suites can be tuned without clashing with gbench flags.
#pragma once

#include <canzona/core/numeric_text.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::bench {

/// Removes every `--canzona_<name>=<value>` argument from argv (adjusting argc) and remembers it.
void take_suite_flags(int& argc, char** argv);

/// The value given for `--canzona_<name>`, or nullopt when the flag was not given. ConfigError
/// when it is not a finite number inside `range` (never silently "the default").
std::optional<double> suite_flag(std::string_view name, const RealRange& range);

/// The text given for `--canzona_<name>`, or `fallback`.
std::string suite_text_flag(std::string_view name, std::string_view fallback);

/// The comma-separated items given for `--canzona_<name>`, or those of `fallback`. ConfigError
/// when the list is empty.
std::vector<std::string> suite_list_flag(std::string_view name, std::string_view fallback);

/// The comma-separated whole numbers given for `--canzona_<name>` (each >= `min`), or those of
/// `fallback`. ConfigError naming the flag and the item otherwise.
std::vector<int> suite_whole_list_flag(std::string_view name, std::string_view fallback, int min);

/// `--canzona_backend`: `cpu` or `cuda`; by default `cuda` where the build has CUDA and NCCL and a
/// device is present, `cpu` otherwise. ConfigError for anything else.
std::string suite_backend_flag();

/// The whole number given for `--canzona_<name>` (>= `min`), or `fallback`. ConfigError naming
/// the flag otherwise.
int suite_whole_flag(std::string_view name, double fallback, double min);

/// Names of flags given but never read by the suite (reported as errors after registration).
std::string unused_suite_flags();

}  // namespace canzona::bench
