// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Per-entry costs of a ZeRO-1 buffer for the DP partitioners.
#include "canzona/plan/cost.hpp"

#include <canzona/core/error.hpp>
#include <canzona/optim/cost_model.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>

namespace canzona::plan {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string_view to_string(CostKind kind) {
  switch (kind) {
    case CostKind::kNumel:
      return "numel";
    case CostKind::kFlops:
      return "flops";
  }
  return "unknown";
}

CostKind parse_cost_kind(std::string_view text) {
  for (const CostKind kind : {CostKind::kNumel, CostKind::kFlops}) {
    if (equals_ignoring_case(text, to_string(kind))) {
      return kind;
    }
  }
  throw ConfigError(fmt::format("unknown partition cost '{}'; choose one of: numel, flops", text));
}

std::string_view cost_proxy_warning(CostKind kind, optim::OptimizerKind optimizer) {
  if (kind != CostKind::kNumel) return "";
  if (optimizer != optim::OptimizerKind::kShampoo && optimizer != optim::OptimizerKind::kSoap) {
    return "";
  }
  return "cost numel is a poor proxy for this optimizer: its eigendecompositions grow with the "
         "cube of each matrix side, not with the element count, so the busiest rank can hold "
         "several times its share of the work; --cost flops balances what is computed";
}

std::vector<double> entry_costs(const layout::Zero1Layout& layout, const layout::Buffer& buffer,
                                CostKind kind, const optim::OptimizerSpec& spec) {
  std::vector<double> costs;
  costs.reserve(buffer.entries.size());
  if (kind == CostKind::kNumel) {
    for (const auto& entry : buffer.entries) {
      costs.push_back(static_cast<double>(entry.numel()));
    }
    return costs;
  }
  optim::validate(spec);
  optim::OptimizerSpec adamw;
  adamw.kind = optim::OptimizerKind::kAdamW;
  adamw.adamw = spec.adamw;
  // AdamW's cost is linear in the element count, so one per-element figure serves every entry.
  const double adamw_per_element = optim::step_cost(adamw, 1, 1).mean_flops();
  for (const auto& entry : buffer.entries) {
    const bool matrix_step = entry.matrix && spec.kind != optim::OptimizerKind::kAdamW;
    if (!matrix_step) {
      costs.push_back(adamw_per_element * static_cast<double>(entry.numel()));
      continue;
    }
    CANZONA_CHECK(entry.param_index < layout.params.size(),
                  fmt::format("entry '{}' refers to param {} but the layout has {}", entry.name,
                              entry.param_index, layout.params.size()));
    const auto& shape = layout.params[entry.param_index].shape;
    CANZONA_CHECK(shape.size() == 2,
                  fmt::format("matrix entry '{}' has a {}-D full shape", entry.name, shape.size()));
    costs.push_back(optim::step_cost(spec, shape[0], shape[1]).mean_flops());
  }
  return costs;
}

std::vector<std::size_t> largest_first(std::span<const double> costs) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  return order;
}

}  // namespace canzona::plan
