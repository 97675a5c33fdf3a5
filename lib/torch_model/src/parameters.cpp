// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Deterministic parameter values and TP sharding.
#include "canzona/torch_model/parameters.hpp"

#include <canzona/core/error.hpp>
#include <canzona/core/splitmix.hpp>
#include <canzona/layout/tp_shapes.hpp>

#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <string_view>

namespace canzona::torch_model {
namespace {

bool is_output_projection(const model::ParamSpec& param) {
  const std::string_view name = param.name;
  return name.find("linear_proj.") != std::string_view::npos ||
         name.find("linear_fc2.") != std::string_view::npos;
}

}  // namespace

at::Tensor full_parameter(const std::vector<model::ParamSpec>& params, std::size_t index,
                          const model::ModelSpec& model, const InitOptions& options) {
  const model::ParamSpec& param = params.at(index);
  at::Generator generator =
      at::make_generator<at::CPUGeneratorImpl>(splitmix64(options.seed ^ splitmix64(index)));
  const at::TensorOptions cpu_float = at::TensorOptions().dtype(at::kFloat);
  if (param.role == model::ParamRole::kNorm) {
    at::Tensor weight = at::ones(param.shape, cpu_float);
    if (options.norm_std > 0) {
      weight.normal_(1.0, options.norm_std, generator);
    }
    return weight;
  }
  double std = options.std;
  if (options.scale_output_projections && is_output_projection(param)) {
    std /= std::sqrt(2.0 * static_cast<double>(model.num_layers));
  }
  // The random ops lock the generator themselves.
  return at::empty(param.shape, cpu_float).normal_(0.0, std, generator);
}

at::Tensor tp_shard(const at::Tensor& full, const model::ParamSpec& param,
                    const model::ModelSpec& model, int tp, int rank) {
  if (rank < 0 || rank >= tp) {
    throw ConfigError(
        fmt::format("tp_shard('{}'): rank {} is outside [0, {})", param.name, rank, tp));
  }
  if (full.sizes().vec() != param.shape) {
    throw ConfigError(
        fmt::format("tp_shard('{}'): the tensor has shape [{}] but the parameter is [{}]",
                    param.name, fmt::join(full.sizes(), ", "), fmt::join(param.shape, ", ")));
  }
  const std::vector<std::int64_t> local = layout::tp_local_shape(param, model, tp);
  if (param.role == model::ParamRole::kEmbedding || param.role == model::ParamRole::kOutputHead) {
    const std::int64_t padded = local[0] * tp;
    const at::Tensor whole = at::constant_pad_nd(full, {0, 0, 0, padded - full.size(0)});
    return whole.narrow(0, rank * local[0], local[0]).contiguous();
  }
  if (param.tp_dim == model::kReplicated || tp == 1) {
    return full.contiguous();
  }
  if (param.fused == model::FusedKind::kGatedFc1) {
    const std::int64_t ffn = full.size(0) / 2;
    const std::int64_t rows = ffn / tp;
    return at::cat({full.narrow(0, rank * rows, rows), full.narrow(0, ffn + rank * rows, rows)});
  }
  const auto dim = param.tp_dim;
  const std::int64_t size = local[static_cast<std::size_t>(dim)];
  return full.narrow(dim, rank * size, size).contiguous();
}

}  // namespace canzona::torch_model
