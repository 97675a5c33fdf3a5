// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Topology presets and the JSON topology schema.
#include "canzona/sim/topology.hpp"

#include <canzona/core/error.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/io/json_text.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace canzona::sim {
namespace {

constexpr std::array<std::string_view, kCollectiveClasses> kClassNames = {
    "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

BusBandwidth uniform(double gbps) { return {gbps, gbps, gbps, gbps, gbps}; }

// Constants: vendor DGX specifications (DGX H100/H200 NVLink 4 + NVSwitch,
// 8 × 400 Gb/s NDR per node; DGX A100 NVLink 3, 8 × 200 Gb/s HDR). Latencies follow NCCL's
// tuning model (LL/LL128 step latencies; base ≈ Simple/LL128 launch cost).
LinkLevel hopper_nvlink() {
  LinkLevel l;
  l.base_latency_us = 8.0;  // tuning.cc baseLatencies Ring/Tree Simple 8.4 µs
  l.step_latency_us = 0.6;  // hwLatencies NVLINK, LL: 0.6 µs per step
  // §2.3: NVLS all-reduce ≈ 480 GB/s busbw; ring-type collectives (RS/AG, ring AR) ≈ 370 GB/s;
  // all-to-all bounded by the same NVLink rate (⚠️ inferred, not measured on H100).
  l.busbw_gbps = {480.0, 370.0, 370.0, 370.0, 370.0};
  return l;
}

LinkLevel ndr_rail(double nic_gbps) {
  LinkLevel l;
  l.base_latency_us = 0.0;
  l.step_latency_us = 5.0;  // hwLatencies NET LL 2.7 … LL128 4.0 µs, plus ~1 µs net overhead
  l.busbw_gbps = uniform(nic_gbps);
  return l;
}

DeviceProfile hopper(std::string name, double hbm_gbps) {
  DeviceProfile d;
  d.name = std::move(name);
  d.bf16_tflops = 989.4;  // §2.1 dense bf16 tensor peak
  d.fp32_tflops = 66.9;   // §2.1 fp32 non-tensor peak
  // Peers §8.2 assume 60 % of peak for Newton–Schulz GEMMs (PyTorch reaches ~48 %, DESIGN's
  // target is >= 70 % of a cuBLAS GEMM at the same shape, itself ~75–80 % of peak).
  d.gemm_efficiency = 0.6;
  d.solver_tflops =
      5.0;  // ⚠️ assumption: cuSOLVER syevd / QR at n ≈ 5k, no published figure found
  d.hbm_gbps = hbm_gbps;
  d.step_overhead_us = 20.0;  // ~15 kernels per matrix step at ~1.5 µs launch gap each
  return d;
}

// Per-NIC busbw of ring-type collectives vs node count for 8 × 400 Gb/s NDR rails, from
// published nccl-tests runs: 2 nodes 46-49 GB/s
// (NVIDIA/nccl-tests #290, #267, #319: "46-48GB/s per NIC", "48-49GB/s"); 4 nodes × 8 H100
// all_reduce 365.84 GB/s busbw = 45.7 per NIC (#309); 248 nodes × 8 H200 all_reduce "typically
// around 350G" = 43.75 per NIC, at times below 300 (#283). No published run between 4 and 248
// nodes was found; the interpolation assumes a smooth decline (at 32 nodes: 44.7 GB/s).
std::vector<NodeBandwidth> ndr_busbw_by_nodes() { return {{2, 48.0}, {4, 45.7}, {248, 43.75}}; }

Topology dgx_hopper(std::string name, std::string gpu, double hbm_gbps) {
  Topology t;
  t.name = std::move(name);
  t.description =
      fmt::format("8 × {} per node, NVLink 4 + NVSwitch (NVLS), 8 × 400 Gb/s NDR IB", gpu);
  t.gpus_per_node = 8;
  t.intra_node = hopper_nvlink();
  t.inter_node = ndr_rail(48.0);  // §2.2: 46–49 GB/s achievable NCCL bandwidth per NDR NIC
  t.inter_node.busbw_by_nodes = ndr_busbw_by_nodes();
  t.device = hopper(gpu, hbm_gbps);
  t.provenance = {
      "preset: NVIDIA datasheet peaks and published nccl-tests bus bandwidths (lib/sim/README.md, "
      "not measured here)",
      "inter-node per-NIC busbw by node count (ring-type collectives): 2 nodes 48, "
      "4 nodes 45.7, 248 nodes 43.75 GB/s from NVIDIA/nccl-tests issues #290/#267/#319, "
      "#309, #283; piecewise linear in log2(nodes)"};
  return t;
}

Topology dgx_a100() {
  Topology t;
  t.name = "dgx-a100";
  t.description = "8 × A100 SXM4 80GB per node, NVLink 3 + NVSwitch, 8 × 200 Gb/s HDR IB";
  t.gpus_per_node = 8;
  t.intra_node.base_latency_us = 8.0;
  t.intra_node.step_latency_us = 0.6;
  t.intra_node.busbw_gbps = uniform(220.0);  // §2.3: intra-node all-reduce ~200–235 GB/s
  t.inter_node = ndr_rail(24.0);             // §2.2: ~24 GB/s per HDR NIC
  DeviceProfile d;
  d.name = "A100 SXM4 80GB";
  d.bf16_tflops = 312.0;
  d.fp32_tflops = 19.5;
  d.gemm_efficiency = 0.6;
  d.solver_tflops = 2.0;  // ⚠️ assumption, as for Hopper
  d.hbm_gbps = 2039.0;
  d.step_overhead_us = 20.0;
  t.device = d;
  t.provenance = {
      "preset: NVIDIA datasheet peaks and published nccl-tests bus bandwidths (lib/sim/README.md, "
      "not measured here)"};
  return t;
}

// ---- JSON reading with what / where / fix messages -------------------------------------------

class Reader {
 public:
  Reader(const nlohmann::json& json, std::string source, std::string path)
      : json_(json), source_(std::move(source)), path_(std::move(path)) {}

  [[noreturn]] void fail(std::string_view key, const std::string& problem) const {
    throw ConfigError(fmt::format("topology {}: '{}{}' {}", source_, path_, key, problem));
  }

  void require_object() const {
    if (!json_.is_object()) {
      throw ConfigError(fmt::format("topology {}: '{}' must be a JSON object, got {}", source_,
                                    path_.empty() ? "<root>" : path_, json_.type_name()));
    }
  }

  void reject_unknown(std::initializer_list<std::string_view> known) const {
    for (auto it = json_.begin(); it != json_.end(); ++it) {
      if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
        fail(it.key(),
             fmt::format("is not a known key; expected one of: {}", fmt::join(known, ", ")));
      }
    }
  }

  const nlohmann::json* find(std::string_view key) const {
    auto it = json_.find(std::string(key));
    return it == json_.end() ? nullptr : &*it;
  }

  double number(std::string_view key, bool required, double fallback = 0) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) {
      if (required) fail(key, "is missing");
      return fallback;
    }
    if (!v->is_number()) fail(key, fmt::format("must be a number, got {}", v->dump()));
    return v->get<double>();
  }

  std::string string(std::string_view key, bool required) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) {
      if (required) fail(key, "is missing");
      return {};
    }
    if (!v->is_string()) fail(key, fmt::format("must be a string, got {}", v->dump()));
    return v->get<std::string>();
  }

  Reader child(std::string_view key) const {
    const nlohmann::json* v = find(key);
    if (v == nullptr) fail(key, "is missing");
    Reader r(*v, source_, fmt::format("{}{}.", path_, key));
    r.require_object();
    return r;
  }

  const nlohmann::json& json() const { return json_; }
  const std::string& source() const { return source_; }
  const std::string& path() const { return path_; }

 private:
  const nlohmann::json& json_;
  std::string source_;
  std::string path_;
};

BusBandwidth read_busbw(const Reader& level) {
  const nlohmann::json* v = level.find("busbw_gbps");
  if (v == nullptr) level.fail("busbw_gbps", "is missing");
  if (v->is_number()) return uniform(v->get<double>());  // one rate for every class
  Reader r = level.child("busbw_gbps");
  std::initializer_list<std::string_view> names = {kClassNames[0], kClassNames[1], kClassNames[2],
                                                   kClassNames[3], kClassNames[4]};
  r.reject_unknown(names);
  BusBandwidth b;
  for (int i = 0; i < kCollectiveClasses; ++i) {
    b[static_cast<CollectiveClass>(i)] = r.number(kClassNames[static_cast<std::size_t>(i)], true);
  }
  return b;
}

// [[nodes, GB/s], ...] with increasing node counts >= 1.
std::vector<NodeBandwidth> read_by_nodes(const Reader& level) {
  std::vector<NodeBandwidth> table;
  const nlohmann::json* v = level.find("busbw_by_nodes");
  if (v == nullptr) return table;
  if (!v->is_array() || v->empty()) {
    level.fail("busbw_by_nodes", "must be a non-empty array of [nodes, GB/s] pairs");
  }
  for (const nlohmann::json& point : *v) {
    if (!point.is_array() || point.size() != 2 || !point[0].is_number_integer() ||
        !point[1].is_number()) {
      level.fail("busbw_by_nodes", fmt::format("has {}; each entry is [nodes, GB/s], e.g. "
                                               "[4, 45.7]",
                                               point.dump()));
    }
    // Read wide, so a huge count is refused instead of narrowed into range.
    constexpr std::int64_t kMaxNodes = std::int64_t{1} << 16;
    const auto nodes = point[0].get<std::int64_t>();
    if (nodes < 1 || nodes > kMaxNodes || (!table.empty() && nodes <= table.back().nodes)) {
      level.fail("busbw_by_nodes",
                 fmt::format("needs node counts in [1, {}] in increasing order", kMaxNodes));
    }
    table.push_back(NodeBandwidth{static_cast<int>(nodes), point[1].get<double>()});
  }
  return table;
}

LinkLevel read_level(const Reader& parent, std::string_view key) {
  Reader r = parent.child(key);
  r.reject_unknown({"base_latency_us", "step_latency_us", "busbw_gbps", "busbw_by_nodes"});
  LinkLevel l;
  l.base_latency_us = r.number("base_latency_us", false, 0.0);
  l.step_latency_us = r.number("step_latency_us", true);
  l.busbw_gbps = read_busbw(r);
  l.busbw_by_nodes = read_by_nodes(r);
  return l;
}

DeviceProfile read_device(const Reader& parent) {
  Reader r = parent.child("device");
  r.reject_unknown({"name", "bf16_tflops", "fp32_tflops", "gemm_efficiency", "solver_tflops",
                    "hbm_gbps", "step_overhead_us"});
  DeviceProfile d;
  d.name = r.string("name", false);
  d.bf16_tflops = r.number("bf16_tflops", true);
  d.fp32_tflops = r.number("fp32_tflops", true);
  d.gemm_efficiency = r.number("gemm_efficiency", true);
  d.solver_tflops = r.number("solver_tflops", true);
  d.hbm_gbps = r.number("hbm_gbps", true);
  d.step_overhead_us = r.number("step_overhead_us", false, 0.0);
  return d;
}

// Bounds far outside any real machine, so that a typo (1e308, 1e-308) is refused here instead of
// turning every projected time into inf or 0. The rate ceiling still admits the "free network"
// of what-if projections (1e15 GB/s: a gigabyte in a femtosecond), whose times stay far above
// the smallest double.
constexpr double kMinRate = 1e-6;      // GB/s or TFLOP/s
constexpr double kMaxRate = 1e15;      // GB/s or TFLOP/s
constexpr double kMaxLatencyUs = 1e8;  // 100 s

void check_rate(const Topology& t, std::string_view field, double value) {
  if (!(std::isfinite(value) && value >= kMinRate && value <= kMaxRate)) {
    throw ConfigError(fmt::format("topology '{}': {} must be a rate in [{:g}, {:g}], got {:g}",
                                  t.name, field, kMinRate, kMaxRate, value));
  }
}

void check_latency(const Topology& t, std::string_view field, double value) {
  if (!(std::isfinite(value) && value >= 0 && value <= kMaxLatencyUs)) {
    throw ConfigError(fmt::format("topology '{}': {} must be in [0, {:g}] µs, got {:g}", t.name,
                                  field, kMaxLatencyUs, value));
  }
}

void check_level(const Topology& t, std::string_view level, const LinkLevel& l) {
  check_latency(t, fmt::format("{}.base_latency_us", level), l.base_latency_us);
  check_latency(t, fmt::format("{}.step_latency_us", level), l.step_latency_us);
  for (int i = 0; i < kCollectiveClasses; ++i) {
    check_rate(t, fmt::format("{}.busbw_gbps.{}", level, kClassNames[static_cast<std::size_t>(i)]),
               l.busbw_gbps[static_cast<CollectiveClass>(i)]);
  }
  for (const NodeBandwidth& b : l.busbw_by_nodes) {
    check_rate(t, fmt::format("{}.busbw_by_nodes at {} nodes", level, b.nodes), b.busbw_gbps);
  }
}

nlohmann::json busbw_json(const BusBandwidth& b) {
  nlohmann::json j = nlohmann::json::object();
  for (int i = 0; i < kCollectiveClasses; ++i) {
    j[std::string(kClassNames[static_cast<std::size_t>(i)])] = b[static_cast<CollectiveClass>(i)];
  }
  return j;
}

nlohmann::json level_json(const LinkLevel& l) {
  nlohmann::json j = {{"base_latency_us", l.base_latency_us},
                      {"step_latency_us", l.step_latency_us},
                      {"busbw_gbps", busbw_json(l.busbw_gbps)}};
  if (!l.busbw_by_nodes.empty()) {
    nlohmann::json table = nlohmann::json::array();
    for (const NodeBandwidth& b : l.busbw_by_nodes) table.push_back({b.nodes, b.busbw_gbps});
    j["busbw_by_nodes"] = std::move(table);
  }
  return j;
}

}  // namespace

double LinkLevel::busbw_at(CollectiveClass kind, int nodes) const {
  if (busbw_by_nodes.empty() || kind == CollectiveClass::kAllToAll) return busbw_gbps[kind];
  const auto& t = busbw_by_nodes;
  if (nodes <= t.front().nodes) return t.front().busbw_gbps;
  if (nodes >= t.back().nodes) return t.back().busbw_gbps;
  std::size_t i = 1;
  while (t[i].nodes < nodes) ++i;
  const double x0 = std::log2(t[i - 1].nodes);
  const double x1 = std::log2(t[i].nodes);
  const double w = (std::log2(nodes) - x0) / (x1 - x0);
  return t[i - 1].busbw_gbps + w * (t[i].busbw_gbps - t[i - 1].busbw_gbps);
}

std::string_view to_string(CollectiveClass kind) {
  return kClassNames.at(static_cast<std::size_t>(kind));
}

CollectiveClass parse_collective_class(std::string_view text) {
  std::string t = lower(text);
  if (t.ends_with("_perf")) t.resize(t.size() - 5);
  t.erase(std::remove(t.begin(), t.end(), '_'), t.end());
  if (t == "allreduce") return CollectiveClass::kAllReduce;
  if (t == "reducescatter") return CollectiveClass::kReduceScatter;
  if (t == "allgather") return CollectiveClass::kAllGather;
  if (t == "alltoall" || t == "gather" || t == "scatter" || t == "sendrecv") {
    return CollectiveClass::kAllToAll;
  }
  if (t == "broadcast" || t == "reduce") return CollectiveClass::kBroadcast;
  throw ConfigError(
      fmt::format("unknown collective '{}'; expected one of: {} (or an nccl-tests name such as "
                  "all_reduce_perf)",
                  text, fmt::join(kClassNames, ", ")));
}

double& BusBandwidth::operator[](CollectiveClass kind) {
  switch (kind) {
    case CollectiveClass::kAllReduce:
      return all_reduce;
    case CollectiveClass::kReduceScatter:
      return reduce_scatter;
    case CollectiveClass::kAllGather:
      return all_gather;
    case CollectiveClass::kAllToAll:
      return all_to_all;
    case CollectiveClass::kBroadcast:
      break;
  }
  return broadcast;
}

double BusBandwidth::operator[](CollectiveClass kind) const {
  return const_cast<BusBandwidth&>(*this)[kind];
}

std::vector<std::string> topology_preset_names() { return {"dgx-h100", "dgx-h200", "dgx-a100"}; }

Topology topology_preset(std::string_view name) {
  const std::string key = lower(name);
  if (key == "dgx-h100") return dgx_hopper("dgx-h100", "H100 SXM5 80GB", 3350.0);
  if (key == "dgx-h200") return dgx_hopper("dgx-h200", "H200 SXM 141GB", 4800.0);
  if (key == "dgx-a100") return dgx_a100();
  throw ConfigError(fmt::format("unknown topology preset '{}'; presets: {} (or a JSON file)", name,
                                fmt::join(topology_preset_names(), ", ")));
}

Topology resolve_topology(const std::string& name_or_path) {
  const std::vector<std::string> presets = topology_preset_names();
  if (std::find(presets.begin(), presets.end(), lower(name_or_path)) != presets.end()) {
    return topology_preset(name_or_path);
  }
  if (name_or_path.ends_with(".json") || std::filesystem::exists(name_or_path)) {
    return load_topology(name_or_path);
  }
  throw ConfigError(fmt::format(
      "topology '{}' is neither a preset ({}) nor an existing JSON file; pass a preset name or "
      "the path of a topology file (schema: lib/sim/README.md)",
      name_or_path, fmt::join(presets, ", ")));
}

void validate(const Topology& t) {
  if (t.name.empty()) throw ConfigError("topology: 'name' must not be empty");
  if (t.gpus_per_node < 1) {
    throw ConfigError(
        fmt::format("topology '{}': gpus_per_node must be >= 1, got {}", t.name, t.gpus_per_node));
  }
  check_level(t, "intra_node", t.intra_node);
  check_level(t, "inter_node", t.inter_node);
  if (t.device) {
    const DeviceProfile& d = *t.device;
    check_rate(t, "device.bf16_tflops", d.bf16_tflops);
    check_rate(t, "device.fp32_tflops", d.fp32_tflops);
    check_rate(t, "device.solver_tflops", d.solver_tflops);
    check_rate(t, "device.hbm_gbps", d.hbm_gbps);
    check_latency(t, "device.step_overhead_us", d.step_overhead_us);
    if (!(d.gemm_efficiency > 0 && d.gemm_efficiency <= 1)) {
      throw ConfigError(
          fmt::format("topology '{}': device.gemm_efficiency must be in (0, 1], got {}", t.name,
                      d.gemm_efficiency));
    }
  }
}

void to_json(nlohmann::json& json, const Topology& t) {
  json = {{"name", t.name},
          {"description", t.description},
          {"gpus_per_node", t.gpus_per_node},
          {"intra_node", level_json(t.intra_node)},
          {"inter_node", level_json(t.inter_node)},
          {"provenance", t.provenance}};
  if (t.device) {
    const DeviceProfile& d = *t.device;
    json["device"] = {{"name", d.name},
                      {"bf16_tflops", d.bf16_tflops},
                      {"fp32_tflops", d.fp32_tflops},
                      {"gemm_efficiency", d.gemm_efficiency},
                      {"solver_tflops", d.solver_tflops},
                      {"hbm_gbps", d.hbm_gbps},
                      {"step_overhead_us", d.step_overhead_us}};
  }
}

Topology topology_from_json(const nlohmann::json& json, std::string_view source) {
  Reader r(json, std::string(source), "");
  r.require_object();
  r.reject_unknown(
      {"name", "description", "gpus_per_node", "intra_node", "inter_node", "device", "provenance"});
  Topology t;
  t.name = r.string("name", true);
  t.description = r.string("description", false);
  const nlohmann::json* gpn = r.find("gpus_per_node");
  if (gpn == nullptr) r.fail("gpus_per_node", "is missing");
  // Read as int64 and range-checked before narrowing: 99999999999 must not become 1215752191.
  constexpr std::int64_t kMaxGpusPerNode = std::int64_t{1} << 16;
  if (!gpn->is_number_integer() ||
      (gpn->is_number_unsigned() && gpn->get<std::uint64_t>() > std::uint64_t{1} << 62)) {
    r.fail("gpus_per_node",
           fmt::format("must be an integer in [1, {}], got {}", kMaxGpusPerNode, gpn->dump()));
  }
  const auto gpus_per_node = gpn->get<std::int64_t>();
  if (gpus_per_node < 1 || gpus_per_node > kMaxGpusPerNode) {
    r.fail("gpus_per_node",
           fmt::format("must be an integer in [1, {}], got {}", kMaxGpusPerNode, gpus_per_node));
  }
  t.gpus_per_node = static_cast<int>(gpus_per_node);
  t.intra_node = read_level(r, "intra_node");
  t.inter_node = read_level(r, "inter_node");
  if (r.find("device") != nullptr) t.device = read_device(r);
  if (const nlohmann::json* p = r.find("provenance")) {
    if (!p->is_array()) r.fail("provenance", "must be an array of strings");
    for (const auto& line : *p) {
      if (!line.is_string()) r.fail("provenance", "must be an array of strings");
      t.provenance.push_back(line.get<std::string>());
    }
  }
  validate(t);
  return t;
}

Topology topology_from_json_text(std::string_view text, std::string_view source) {
  return topology_from_json(
      io::parse_json_text(text, fmt::format("topology file {}", source), "fix the syntax"), source);
}

Topology load_topology(const std::filesystem::path& path) {
  return topology_from_json_text(io::read_input_file(path, "topology file"), path.string());
}

}  // namespace canzona::sim
