// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Layer-wise (Paradigm 2) DP assignment: each whole tensor goes to one DP rank regardless of the
// ZeRO-1 bucket geometry, as NVIDIA's LayerWiseDistributedOptimizer does (paper-spec §2.2).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace canzona::baselines {

/// How items (tensors) are dealt to ranks.
enum class LayerwiseMode {
  /// NVIDIA Megatron-LM (2025): sort by numel ascending (stable: equal numels keep input order)
  /// and deal in ping-pong order 0, 1, …, R−1, R−1, …, 0, 0, 1, … ("pingpong").
  kPingPongNumel,
  /// Item i to rank i mod R, in input (model) order ("roundrobin").
  kRoundRobin,
  /// Longest processing time first on the cost: items by cost descending (ties: lower index
  /// first), each to the currently least-loaded rank (ties: lower rank) ("lpt"). Within 4/3 of the
  /// optimal makespan.
  kLpt,
};

std::string_view to_string(LayerwiseMode mode);  ///< "pingpong", "roundrobin", "lpt"
/// Case-insensitive; ConfigError listing the choices for anything else.
LayerwiseMode parse_layerwise_mode(std::string_view text);

/// Owner rank of every item. numels drives kPingPongNumel and costs drives kLpt; both must have
/// one value per item (costs may be the numels). Pure and deterministic: every rank computes the
/// same assignment. ConfigError when ranks < 1 or the two spans differ in length.
std::vector<int> layerwise_assignment(std::span<const std::int64_t> numels,
                                      std::span<const double> costs, int ranks, LayerwiseMode mode);

}  // namespace canzona::baselines
