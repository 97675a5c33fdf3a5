// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Data- and tensor-parallel degrees of a job and their validation against a model.
#pragma once

#include <cstdint>
#include <vector>

#include <canzona/model/spec.hpp>

namespace canzona::layout {

/// The largest job (dp·tp ranks) plans are built for. A plan holds per-rank tables (bucket cuts,
/// collectives, loads), so its memory and planning time grow with the rank count; 65536 ranks is
/// 64x the largest configuration the design targets, and a clear error beyond it beats an
/// allocation failure minutes later.
inline constexpr int kMaxWorldSize = 1 << 16;

/// How a job is split. Ranks are laid out TP-innermost (Megatron's default order), so a TP group
/// is tp consecutive ranks and must fit inside one node.
struct ParallelConfig {
  int dp = 1;             ///< data-parallel (ZeRO-1) degree
  int tp = 1;             ///< tensor-parallel degree
  int gpus_per_node = 8;  ///< GPUs per node; TP groups never span nodes
  /// dp · tp.
  int world() const { return dp * tp; }
};

/// Throws ConfigError (what is wrong, and which values would work) unless: dp, tp and
/// gpus_per_node are >= 1; dp·tp <= kMaxWorldSize; tp divides num_heads, num_kv_heads (Megatron's
/// num_query_groups), intermediate_size and, for MoE, moe_intermediate_size (experts are TP-sharded
/// with expert-TP = TP); and tp <= gpus_per_node.
void validate(const ParallelConfig& config, const model::ModelSpec& model);

/// Throws ConfigError "dp·tp = X but the job has Y ranks" unless dp·tp == world_size.
void validate_world(const ParallelConfig& config, int world_size);

/// Every tp in [1, gpus_per_node] that passes validate() for `model`, ascending.
std::vector<int> valid_tp_values(const model::ModelSpec& model, int gpus_per_node);

}  // namespace canzona::layout
