// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The emulated cluster a projection assumes: nodes of GPUs joined by NVLink inside a node and by
// one InfiniBand NIC per GPU across nodes, the alpha-beta constants of each level, and the device
// profile that turns cost-model FLOPs into kernel time. Presets for DGX H100 / H200 / A100, and
// JSON files (lib/sim/README.md documents the schema) for calibrated or custom clusters.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::sim {

/// The collective classes the model distinguishes; each has its own bus bandwidth because NCCL
/// reaches different rates for them (NVLS all-reduce vs ring reduce-scatter, all-to-all over
/// NICs).
enum class CollectiveClass {
  kAllReduce,      ///< all_reduce (busbw factor 2(n−1)/n)
  kReduceScatter,  ///< reduce_scatter (factor (n−1)/n)
  kAllGather,      ///< all_gather (factor (n−1)/n)
  kAllToAll,       ///< all_to_all, gather, scatter: point-to-point exchanges (factor (n−1)/n)
  kBroadcast,      ///< broadcast, reduce (factor 1)
};
inline constexpr int kCollectiveClasses = 5;

/// "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast".
std::string_view to_string(CollectiveClass kind);
/// Inverse of to_string; also accepts nccl-tests binary names ("all_reduce_perf", "alltoall",
/// "reduce" → kBroadcast, "gather"/"scatter" → kAllToAll). ConfigError listing the choices.
CollectiveClass parse_collective_class(std::string_view text);

/// Bus bandwidth per collective class, GB/s (1e9 B/s), nccl-tests' busbw definition.
struct BusBandwidth {
  double all_reduce = 0;
  double reduce_scatter = 0;
  double all_gather = 0;
  double all_to_all = 0;
  double broadcast = 0;
  double& operator[](CollectiveClass kind);
  double operator[](CollectiveClass kind) const;
};

/// Per-NIC bus bandwidth measured with a group spanning `nodes` nodes.
struct NodeBandwidth {
  int nodes = 0;
  double busbw_gbps = 0;
};

/// One level of the interconnect.
///
/// Latency of a collective (NCCL's tuning model, src/graph/tuning.cc, simplified): a fixed
/// `base_latency_us` per launch plus `step_latency_us` per algorithm step; a ring step that
/// crosses nodes costs the inter-node level's step latency instead.
struct LinkLevel {
  double base_latency_us = 0;  ///< once per collective (only the intra-node value is used)
  double step_latency_us = 0;  ///< per ring / tree step over this level
  /// Intra-node: bus bandwidth per GPU of a group inside one node. Inter-node: bus bandwidth of
  /// ONE NIC (one GPU's rail); a group with k ranks per node gets k NICs' worth, capped by the
  /// intra-node rate (research: min(NVLink ≈ 370, 8 × 48 GB/s)).
  BusBandwidth busbw_gbps;
  /// Inter-node only, optional: per-NIC bus bandwidth of the ring-type collectives (all-reduce,
  /// reduce-scatter, all-gather, broadcast) measured at several node counts, which replaces
  /// busbw_gbps for them: large rings lose bandwidth to stragglers and congestion. Between
  /// points piecewise linear in log2(nodes), clamped outside. All-to-all keeps busbw_gbps.
  /// Calibrating a class from a multi-node run drops the table (the measurement wins).
  std::vector<NodeBandwidth> busbw_by_nodes;
  /// busbw_gbps[kind], or busbw_by_nodes at `nodes` for a ring-type class when the table is set.
  double busbw_at(CollectiveClass kind, int nodes) const;
};

/// How fast the GPUs of the cluster run optimizer kernels: used when compute time comes from
/// the optimizer cost model (optim::step_cost FLOPs / assumed rate) rather than measurement.
struct DeviceProfile {
  std::string name;             ///< "NVIDIA H100 SXM5 80GB"
  double bf16_tflops = 0;       ///< dense bf16 tensor peak, TFLOP/s
  double fp32_tflops = 0;       ///< fp32 (non-tensor) peak, TFLOP/s
  double gemm_efficiency = 0;   ///< fraction of peak a large GEMM sustains, (0, 1]
  double solver_tflops = 0;     ///< effective rate of eigh / QR refreshes, TFLOP/s
  double hbm_gbps = 0;          ///< HBM bandwidth, GB/s (element-wise kernels)
  double step_overhead_us = 0;  ///< fixed cost per matrix step (kernel launches, gaps)
};

/// The cluster. Global ranks are laid out node-major (rank r lives on node r / gpus_per_node);
/// with Megatron's order (rank = dp_idx·tp + tp_idx) a TP group of tp ≤ gpus_per_node ranks sits
/// inside one node and a DP group spreads over nodes.
struct Topology {
  std::string name;  ///< "dgx-h100", a file's "name", or "local"
  std::string description;
  int gpus_per_node = 8;
  LinkLevel intra_node;  ///< NVLink / NVSwitch (or shared memory for "local")
  LinkLevel inter_node;  ///< InfiniBand, per NIC; one NIC per GPU (rail-optimised)
  /// Compute rates for cost-model projections; absent: compute must be measured.
  std::optional<DeviceProfile> device;
  /// Where the numbers come from (research notes, a calibration file), carried into outputs.
  std::vector<std::string> provenance;
};

/// Names of the built-in presets: "dgx-h100", "dgx-h200", "dgx-a100".
std::vector<std::string> topology_preset_names();

/// A preset by name (case-insensitive). ConfigError listing the presets otherwise.
Topology topology_preset(std::string_view name);

/// A preset name, or else a JSON topology file. ConfigError naming the file and the problem.
Topology resolve_topology(const std::string& name_or_path);

/// Throws ConfigError (naming the topology, field and valid range) unless every rate is positive
/// and finite, latencies are >= 0, gpus_per_node >= 1 and the device profile (when present) has
/// positive rates and an efficiency in (0, 1].
void validate(const Topology& topology);

void to_json(nlohmann::json& json, const Topology& topology);
/// Reads the schema of lib/sim/README.md; `source` names the file in error messages.
/// Unknown keys are rejected (a misspelt key would otherwise silently keep a default).
Topology topology_from_json(const nlohmann::json& json, std::string_view source);
/// Parses a topology file's text (ConfigError for malformed JSON) and calls topology_from_json.
Topology topology_from_json_text(std::string_view text, std::string_view source);
/// Loads and validates a topology file. ConfigError on I/O, JSON or schema errors.
Topology load_topology(const std::filesystem::path& path);

}  // namespace canzona::sim
