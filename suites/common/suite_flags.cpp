// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "suite_flags.hpp"

#include <canzona/bench/did_you_mean.hpp>

#include <canzona/config.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/numeric_text.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace canzona::bench {
namespace {

constexpr std::string_view kPrefix = "--canzona_";

std::map<std::string, std::string, std::less<>>& flags() {
  static std::map<std::string, std::string, std::less<>> values;
  return values;
}
std::set<std::string, std::less<>>& read_flags() {
  static std::set<std::string, std::less<>> names;
  return names;
}

}  // namespace

void take_suite_flags(int& argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (!arg.starts_with(kPrefix)) {
      argv[kept++] = argv[i];
      continue;
    }
    const std::size_t eq = arg.find('=');
    if (eq == std::string_view::npos) {
      throw ConfigError(
          fmt::format("{}: suite flags take a value (--canzona_<name>=<value>)", arg));
    }
    flags()[std::string(arg.substr(kPrefix.size(), eq - kPrefix.size()))] =
        std::string(arg.substr(eq + 1));
  }
  argc = kept;
}

std::optional<double> suite_flag(std::string_view name, const RealRange& range) {
  read_flags().insert(std::string(name));
  const auto it = flags().find(name);
  if (it == flags().end()) return std::nullopt;
  return parse_real(fmt::format("--canzona_{}", name), it->second, range);
}

std::string suite_text_flag(std::string_view name, std::string_view fallback) {
  read_flags().insert(std::string(name));
  const auto it = flags().find(name);
  return it == flags().end() ? std::string(fallback) : it->second;
}

std::vector<std::string> suite_list_flag(std::string_view name, std::string_view fallback) {
  std::vector<std::string> items;
  std::stringstream in(suite_text_flag(name, fallback));
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) items.push_back(item);
  }
  if (items.empty()) {
    throw ConfigError(fmt::format("--canzona_{} is empty; give a comma-separated list", name));
  }
  return items;
}

std::vector<int> suite_whole_list_flag(std::string_view name, std::string_view fallback, int min) {
  std::vector<int> values;
  const std::string what = fmt::format("--canzona_{}", name);
  for (const std::string& item : suite_list_flag(name, fallback)) {
    values.push_back(static_cast<int>(parse_integer(what, item, IntegerRange{min, 1 << 30})));
  }
  return values;
}

std::string suite_backend_flag() {
  const bool gpu_job = CANZONA_WITH_CUDA && CANZONA_WITH_NCCL && cuda_device_count() > 0;
  std::string backend = suite_text_flag("backend", gpu_job ? "cuda" : "cpu");
  if (backend != "cpu" && backend != "cuda") {
    throw ConfigError(fmt::format("--canzona_backend={}: expected cpu or cuda", backend));
  }
  return backend;
}

int suite_whole_flag(std::string_view name, double fallback, double min) {
  const double value = suite_flag(name, RealRange{min, 1e9}).value_or(fallback);
  if (value != std::floor(value)) {
    throw ConfigError(
        fmt::format("--canzona_{}={}: expected a whole number >= {}", name, value, min));
  }
  return static_cast<int>(value);
}

std::string unused_suite_flags() {
  std::vector<std::string> known;
  for (const std::string& name : read_flags()) known.push_back("--canzona_" + name);
  std::string unused;
  for (const auto& [name, value] : flags()) {
    if (read_flags().count(name) != 0) continue;
    const std::string flag = "--canzona_" + name;
    unused += (unused.empty() ? "" : ", ") + flag + did_you_mean(flag, known);
  }
  return unused;
}

}  // namespace canzona::bench
