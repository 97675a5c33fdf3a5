// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "plan_units.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace canzona::harness {
namespace {

Unit si_unit(double max_value, const std::string& base, const std::string& separator) {
  constexpr std::array<std::pair<double, const char*>, 5> kPrefixes = {
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, prefix] : kPrefixes) {
    if (max_value >= scale) return {scale, fmt::format("{}{}{}", prefix, separator, base)};
  }
  return {1, base};
}

}  // namespace

Unit flop_unit(double max_value) { return si_unit(max_value, "FLOP", ""); }

Unit cost_unit(plan::CostKind kind, double max_value) {
  return kind == plan::CostKind::kFlops ? flop_unit(max_value) : si_unit(max_value, "elem", " ");
}

std::string counted(std::size_t n, std::string_view noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

std::string mib(double bytes) { return fmt::format("{:.1f}", bytes / (1024.0 * 1024.0)); }

}  // namespace canzona::harness
