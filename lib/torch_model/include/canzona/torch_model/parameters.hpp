// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Parameter values of the libtorch Qwen3 model: deterministic full tensors that do not depend on
// the TP degree, and the TP shard of a full tensor exactly as lib/layout and lib/exec define it.
#pragma once

#include <canzona/model/parameters.hpp>
#include <canzona/model/spec.hpp>

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace canzona::torch_model {

/// How parameters are initialised (Megatron's init_method_normal / scaled_init_method_normal).
struct InitOptions {
  std::uint64_t seed = 0;
  /// Standard deviation of matrices and embeddings (Megatron's init_method_std).
  double std = 0.02;
  /// Divide the std of the output projections (linear_proj, linear_fc2, expert fc2) by
  /// sqrt(2·num_layers), as Megatron's scaled_init_method_normal does.
  bool scale_output_projections = true;
  /// Norm weights are 1 + normal(0, norm_std): 0 is the real initialisation; tests use more so
  /// that a norm weight applied in the wrong place shows.
  double norm_std = 0.0;
};

/// The full value (TP = 1 shape, unpadded vocab) of `params[index]`, a float32 CPU tensor drawn
/// from a generator seeded by (options.seed, index): the same on every rank and for every tp.
at::Tensor full_parameter(const std::vector<model::ParamSpec>& params, std::size_t index,
                          const model::ModelSpec& model, const InitOptions& options);

/// TP rank `rank`'s shard of `full` (the full value of `param`), contiguous: the row block of a
/// column-parallel tensor (linear_qkv's KV groups are contiguous, so this is whole groups), the
/// column block of a row-parallel one, [gate_rank; up_rank] of a gated linear_fc1 (gate and up
/// are sharded separately), the vocabulary rows [rank·rows, (rank+1)·rows) of the embedding and
/// the output head after zero-padding to the Megatron vocabulary, and `full` itself for
/// replicated tensors. The result has layout::tp_local_shape(param, model, tp).
at::Tensor tp_shard(const at::Tensor& full, const model::ParamSpec& param,
                    const model::ModelSpec& model, int tp, int rank);

}  // namespace canzona::torch_model
