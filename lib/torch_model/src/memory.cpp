// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Run-shape and TP validation and the memory estimate of the libtorch model. No libtorch here.
#include "canzona/torch_model/memory.hpp"

#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/layout/tp_shapes.hpp>
#include <canzona/model/parameters.hpp>

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace canzona::torch_model {

void validate(const RunShape& shape, const model::ModelSpec& model) {
  if (shape.micro_batch < 1) {
    throw ConfigError(fmt::format(
        "micro-batch size {} is invalid for {}: a forward pass needs at least one sequence; "
        "use a micro-batch >= 1",
        shape.micro_batch, model.name));
  }
  if (shape.seq_len < 1 || shape.seq_len > model.max_position_embeddings) {
    throw ConfigError(fmt::format(
        "sequence length {} is invalid for {}: it must be in [1, {}] (max_position_embeddings, "
        "the longest position RoPE was trained for)",
        shape.seq_len, model.name, model.max_position_embeddings));
  }
}

void validate_tp(const model::ModelSpec& model, int tp) {
  // The model alone has no node boundary; the layout's check of tp <= gpus_per_node is the
  // launcher's business, so allow any tp the shapes allow.
  layout::ParallelConfig config;
  config.tp = tp;
  config.gpus_per_node = std::max(tp, config.gpus_per_node);
  layout::validate(config, model);
}

MemoryEstimate estimate_memory(const model::ModelSpec& model, int tp, const RunShape& shape,
                               int element_bytes, bool fused_attention) {
  validate_tp(model, tp);
  validate(shape, model);
  MemoryEstimate estimate;
  for (const model::ParamSpec& param : model::parameters(model, model::ParamLayout::kMegatron)) {
    estimate.parameter_bytes += layout::tp_local_numel(param, model, tp) * element_bytes;
  }
  estimate.gradient_bytes = estimate.parameter_bytes;

  const std::int64_t h = model.hidden_size;
  const std::int64_t attention = 4 * model.qkv_rows() / tp;
  std::int64_t per_token_layer = 8 * h + attention;
  if (model.is_moe()) {
    per_token_layer +=
        model.num_experts + model.experts_per_token * (h + 5 * model.moe_intermediate_size / tp);
  } else {
    per_token_layer += 5 * model.intermediate_size / tp;
  }
  if (!fused_attention) {
    per_token_layer += 2 * (model.num_heads / tp) * shape.seq_len;
  }
  const std::int64_t tokens = shape.micro_batch * shape.seq_len;
  const std::int64_t local_vocab = layout::padded_vocab_size(model.vocab_size, tp) / tp;
  estimate.activation_bytes = model.num_layers * tokens * per_token_layer * element_bytes +
                              tokens * local_vocab * (element_bytes + 3 * 4) +
                              4 * tokens * h * element_bytes;
  return estimate;
}

std::int64_t available_host_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      std::int64_t kib = 0;
      if (fields >> kib) {
        return kib * 1024;
      }
    }
  }
  // No /proc (not Linux, or a sandbox): the physical memory is the best bound left.
  return static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) *
         static_cast<std::int64_t>(sysconf(_SC_PAGE_SIZE));
}

std::int64_t available_cuda_bytes(int device) { return cuda_free_memory_bytes(device); }

void check_fits(const MemoryEstimate& estimate, std::int64_t available_bytes,
                const model::ModelSpec& model, int tp, const RunShape& shape,
                const std::string& where) {
  if (estimate.total() <= available_bytes) {
    return;
  }
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw ConfigError(fmt::format(
      "{} at tp={} with micro-batch {} x sequence {} needs about {:.2f} GiB per rank on {} "
      "(parameters {:.2f}, gradients {:.2f}, activations {:.2f}) but {:.2f} GiB are available; "
      "use more TP ranks, a smaller micro-batch or sequence, a smaller model, or a device with "
      "more memory",
      model.name, tp, shape.micro_batch, shape.seq_len, estimate.total() / kGiB, where,
      estimate.parameter_bytes / kGiB, estimate.gradient_bytes / kGiB,
      estimate.activation_bytes / kGiB, available_bytes / kGiB));
}

}  // namespace canzona::torch_model
