// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Qwen3-shaped models scaled down for CPU machines, and the "~d<factor>" suffix that names them.
#include "canzona/model/catalog.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <numeric>
#include <vector>

namespace canzona::model {
namespace {

constexpr std::string_view kScaleMarker = "~d";

// The largest TP degree a scaled model must keep: one node of 8 GPUs (TP never spans nodes).
constexpr std::int64_t kMaxTp = 8;

struct Width {
  const char* name;
  std::int64_t ModelSpec::*field;
  bool tp_sharded;  ///< TP splits it, so the TP degrees dividing it must still divide it
};

// Widths only: dividing a count (layers, heads, experts) would change which matrices exist and
// which TP degrees are valid, i.e. the problem the strategies solve.
constexpr Width kWidths[] = {
    {"hidden_size", &ModelSpec::hidden_size, false},
    {"intermediate_size", &ModelSpec::intermediate_size, true},
    {"moe_intermediate_size", &ModelSpec::moe_intermediate_size, true},
    {"head_dim", &ModelSpec::head_dim, false},
    {"vocab_size", &ModelSpec::vocab_size, false},
};

// Factors >= 2 dividing every non-zero width of `base`, for the error message.
std::vector<std::int64_t> valid_factors(const ModelSpec& base) {
  std::int64_t all = 0;
  for (const Width& w : kWidths) all = std::gcd(all, base.*w.field);
  std::vector<std::int64_t> factors;
  for (std::int64_t f = 2; f <= all; ++f) {
    if (all % f == 0) factors.push_back(f);
  }
  return factors;
}

}  // namespace

ModelSpec scaled_model(const ModelSpec& base, std::int64_t factor) {
  if (factor < 2) {
    throw ConfigError(fmt::format(
        "scale factor {} for {}: a scaled model divides every width by a factor >= 2 (use the "
        "plain name '{}' for the full model)",
        factor, base.name, base.name));
  }
  ModelSpec scaled = base;
  for (const Width& w : kWidths) {
    const std::int64_t value = base.*w.field;
    if (value % factor != 0) {
      throw ConfigError(fmt::format(
          "cannot scale {} by {}: {} = {} is not divisible by {}; "
          "factors that divide every width: {}",
          base.name, factor, w.name, value, factor, fmt::join(valid_factors(base), ", ")));
    }
    scaled.*w.field = value / factor;
    for (std::int64_t tp = 2; w.tp_sharded && tp <= kMaxTp; ++tp) {
      if (value % tp == 0 && (value / factor) % tp != 0) {
        throw ConfigError(fmt::format(
            "cannot scale {} by {}: {} would become {}, which tp {} no longer divides (the full "
            "model's {} does); take a smaller factor",
            base.name, factor, w.name, value / factor, tp, value));
      }
    }
  }
  scaled.name = fmt::format("{}{}{}", base.name, kScaleMarker, factor);
  scaled.display_name = fmt::format("{}{}{}", base.display_name, kScaleMarker, factor);
  return scaled;
}

ModelSpec model_from_name(std::string_view name) {
  const std::size_t marker = name.find('~');
  if (marker == std::string_view::npos) return find_model(name);
  const ModelSpec& base = find_model(name.substr(0, marker));
  const std::string_view suffix = name.substr(marker + 1);
  std::int64_t factor = 0;
  const bool marked = !suffix.empty() && (suffix.front() == 'd' || suffix.front() == 'D');
  const std::string_view digits = marked ? suffix.substr(1) : std::string_view();
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), factor);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size()) {
    throw ConfigError(fmt::format(
        "model '{}': a scaled model is named <catalog name>{}<factor>, the factor a whole number "
        "every width is divided by (e.g. '{}{}16')",
        name, kScaleMarker, base.name, kScaleMarker));
  }
  return scaled_model(base, factor);
}

}  // namespace canzona::model
