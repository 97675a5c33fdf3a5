// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// ParallelConfig validation with fix-it messages.
#include "canzona/layout/parallel_config.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace canzona::layout {
namespace {

// The first model dimension tp fails to divide, or nullptr.
const char* undivided_dimension(const model::ModelSpec& m, int tp, std::int64_t* value) {
  struct Dim {
    const char* name;
    std::int64_t value;
  };
  std::vector<Dim> dims = {
      {"num_attention_heads", m.num_heads},
      {"num_key_value_heads", m.num_kv_heads},
      {"intermediate_size", m.intermediate_size},
  };
  if (m.is_moe()) {
    dims.push_back({"moe_intermediate_size", m.moe_intermediate_size});
  }
  for (const Dim& d : dims) {
    if (d.value % tp != 0) {
      *value = d.value;
      return d.name;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<int> valid_tp_values(const model::ModelSpec& model, int gpus_per_node) {
  std::vector<int> out;
  for (int tp = 1; tp <= gpus_per_node; ++tp) {
    std::int64_t value = 0;
    if (undivided_dimension(model, tp, &value) == nullptr) {
      out.push_back(tp);
    }
  }
  return out;
}

void validate(const ParallelConfig& config, const model::ModelSpec& model) {
  if (config.gpus_per_node < 1) {
    throw ConfigError(fmt::format("gpus_per_node={} is invalid: it must be >= 1 (8 on DGX nodes)",
                                  config.gpus_per_node));
  }
  if (config.dp < 1) {
    throw ConfigError(
        fmt::format("dp={} is invalid: the data-parallel degree must be >= 1", config.dp));
  }
  if (config.tp < 1) {
    throw ConfigError(fmt::format(
        "tp={} is invalid: the tensor-parallel degree must be >= 1; valid tp for {} with {} GPUs "
        "per node: {}",
        config.tp, model.name, config.gpus_per_node,
        fmt::join(valid_tp_values(model, config.gpus_per_node), ", ")));
  }
  if (config.tp > config.gpus_per_node) {
    throw ConfigError(fmt::format(
        "tp={} exceeds gpus_per_node={}: a TP group must stay inside one node (NVLink); valid tp "
        "for {}: {}",
        config.tp, config.gpus_per_node, model.name,
        fmt::join(valid_tp_values(model, config.gpus_per_node), ", ")));
  }
  if (std::int64_t{config.dp} * config.tp > kMaxWorldSize) {
    throw ConfigError(fmt::format(
        "dp·tp = {}·{} = {} ranks exceeds the largest job plans are built for ({} ranks); plan a "
        "smaller job (plans scale with the rank count)",
        config.dp, config.tp, std::int64_t{config.dp} * config.tp, kMaxWorldSize));
  }
  std::int64_t value = 0;
  if (const char* dim = undivided_dimension(model, config.tp, &value); dim != nullptr) {
    throw ConfigError(fmt::format(
        "tp={} does not divide {}={} of {}: Megatron shards it evenly across the TP group; valid "
        "tp for this model with {} GPUs per node: {}",
        config.tp, dim, value, model.name, config.gpus_per_node,
        fmt::join(valid_tp_values(model, config.gpus_per_node), ", ")));
  }
}

void validate_world(const ParallelConfig& config, int world_size) {
  const std::int64_t product = std::int64_t{config.dp} * config.tp;
  if (product != world_size) {
    throw ConfigError(fmt::format(
        "dp·tp = {}·{} = {} but the job has {} ranks; launch {} ranks or choose dp = {} / tp",
        config.dp, config.tp, product, world_size, product, world_size));
  }
}

}  // namespace canzona::layout
