// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/harness/benchmark_name.hpp"

#include <charconv>
#include <vector>

namespace canzona::harness {
namespace {

bool strip_suffix(std::string_view& text, std::string_view suffix) {
  if (!text.ends_with(suffix)) return false;
  text.remove_suffix(suffix.size());
  return true;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// "<key>:<positive integer>".
std::optional<int> keyed_number(std::string_view part, std::string_view key) {
  if (!part.starts_with(key) || part.size() <= key.size() + 1 || part[key.size()] != ':') {
    return std::nullopt;
  }
  const std::string_view digits = part.substr(key.size() + 1);
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value < 1) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<BenchmarkName> parse_benchmark_name(std::string_view name) {
  BenchmarkName parsed;
  for (const std::string_view aggregate : {"_mean", "_median", "_stddev", "_cv"}) {
    if (strip_suffix(name, aggregate)) {
      parsed.aggregate = aggregate.substr(1);
      break;
    }
  }
  strip_suffix(name, "/manual_time");
  parsed.base = name;
  parsed.projected = strip_suffix(name, "/projected");
  const std::vector<std::string_view> parts = split(name, '/');
  if (parts.size() != 7) return std::nullopt;
  for (std::size_t i = 0; i < 4; ++i) {
    if (parts[i].empty()) return std::nullopt;
  }
  const auto gpus = keyed_number(parts[4], "gpus");
  const auto dp = keyed_number(parts[5], "dp");
  const auto tp = keyed_number(parts[6], "tp");
  if (!gpus || !dp || !tp || *gpus != *dp * *tp) return std::nullopt;
  parsed.family = parts[0];
  parsed.optimizer = parts[1];
  parsed.strategy = parts[2];
  parsed.model = parts[3];
  parsed.gpus = *gpus;
  parsed.dp = *dp;
  parsed.tp = *tp;
  return parsed;
}

}  // namespace canzona::harness
