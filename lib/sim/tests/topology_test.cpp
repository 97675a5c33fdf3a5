// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Topology presets and the JSON schema: presets are valid and round-trip, bad files are refused
// with the key and the problem named.
#include <canzona/core/error.hpp>
#include <canzona/sim/topology.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace canzona::sim {
namespace {

void expect_config_error(const std::function<void()>& f, const std::string& fragment) {
  try {
    f();
    FAIL() << "expected ConfigError containing '" << fragment << "'";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(TopologyTest, PresetsAreValidAndRoundTripThroughJson) {
  for (const std::string& name : topology_preset_names()) {
    SCOPED_TRACE(name);
    const Topology t = topology_preset(name);
    EXPECT_NO_THROW(validate(t));
    EXPECT_EQ(t.name, name);
    ASSERT_TRUE(t.device.has_value());
    const Topology back = topology_from_json(nlohmann::json(t), "<round-trip>");
    EXPECT_EQ(nlohmann::json(back), nlohmann::json(t));
  }
}

TEST(TopologyTest, HopperPresetCarriesTheResearchConstants) {
  const Topology t = topology_preset("DGX-H100");  // case-insensitive
  EXPECT_EQ(t.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(t.intra_node.busbw_gbps.all_reduce, 480.0);
  EXPECT_DOUBLE_EQ(t.intra_node.busbw_gbps.reduce_scatter, 370.0);
  EXPECT_DOUBLE_EQ(t.inter_node.busbw_gbps.all_gather, 48.0);
  EXPECT_DOUBLE_EQ(t.device->bf16_tflops, 989.4);
}

TEST(TopologyTest, OneNumberSetsEveryCollectiveClass) {
  nlohmann::json j = nlohmann::json(topology_preset("dgx-a100"));
  j["inter_node"]["busbw_gbps"] = 12.5;
  j.erase("device");
  const Topology t = topology_from_json(j, "<inline>");
  for (int i = 0; i < kCollectiveClasses; ++i) {
    EXPECT_DOUBLE_EQ(t.inter_node.busbw_gbps[static_cast<CollectiveClass>(i)], 12.5);
  }
  EXPECT_FALSE(t.device.has_value());
}

TEST(TopologyTest, RejectsUnknownKeysMissingFieldsAndBadValues) {
  const nlohmann::json good = nlohmann::json(topology_preset("dgx-h100"));
  nlohmann::json j = good;
  j["intra_node"]["bandwidth"] = 1;
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "intra_node.bandwidth");
  j = good;
  j["inter_node"].erase("step_latency_us");
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "inter_node.step_latency_us");
  j = good;
  j["intra_node"]["busbw_gbps"]["all_to_all"] = -3;
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "all_to_all");
  j = good;
  j["device"]["gemm_efficiency"] = 1.5;
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "gemm_efficiency");
  j = good;
  j["gpus_per_node"] = "eight";
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "gpus_per_node");
}

// Values that used to be accepted: a gpus_per_node silently narrowed to int (99999999999 became
// 1215752191) and latencies or rates so extreme that every projected time was inf or 0.
TEST(TopologyTest, RejectsValuesOutsidePhysicalBounds) {
  const nlohmann::json good = nlohmann::json(topology_preset("dgx-h100"));
  nlohmann::json j = good;
  j["gpus_per_node"] = 99999999999;
  expect_config_error([&] { topology_from_json(j, "t.json"); },
                      "'gpus_per_node' must be an integer in [1, 65536], got 99999999999");
  j["gpus_per_node"] = 18446744073709551615u;
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "gpus_per_node");
  j["gpus_per_node"] = 0;
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "gpus_per_node");
  j = good;
  j["intra_node"]["step_latency_us"] = 1e308;
  expect_config_error([&] { topology_from_json(j, "t.json"); },
                      "intra_node.step_latency_us must be in [0, 1e+08] µs, got 1e+308");
  j = good;
  j["inter_node"]["busbw_gbps"]["all_gather"] = 1e308;
  expect_config_error([&] { topology_from_json(j, "t.json"); },
                      "inter_node.busbw_gbps.all_gather must be a rate in [1e-06, 1e+15]");
  j = good;
  j["device"]["hbm_gbps"] = 1e-308;
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "device.hbm_gbps");
}

TEST(TopologyTest, InterNodeBusbwFollowsTheNodeCountTable) {
  const Topology t = topology_preset("dgx-h100");
  ASSERT_FALSE(t.inter_node.busbw_by_nodes.empty());
  const LinkLevel& nic = t.inter_node;
  EXPECT_DOUBLE_EQ(nic.busbw_at(CollectiveClass::kAllReduce, 1), 48.0);  // clamped below
  EXPECT_DOUBLE_EQ(nic.busbw_at(CollectiveClass::kAllReduce, 2), 48.0);
  EXPECT_DOUBLE_EQ(nic.busbw_at(CollectiveClass::kReduceScatter, 4), 45.7);
  EXPECT_DOUBLE_EQ(nic.busbw_at(CollectiveClass::kAllGather, 1024), 43.75);  // clamped above
  // Linear in log2(nodes) between the points, falling with the node count.
  const double at16 = nic.busbw_at(CollectiveClass::kAllGather, 16);
  const double at64 = nic.busbw_at(CollectiveClass::kAllGather, 64);
  EXPECT_NEAR((at16 + at64) / 2, nic.busbw_at(CollectiveClass::kAllGather, 32), 1e-12);
  EXPECT_GT(at16, at64);
  // All-to-all keeps its per-NIC rate.
  EXPECT_DOUBLE_EQ(nic.busbw_at(CollectiveClass::kAllToAll, 64), 48.0);
  // Round trip, and bad tables are refused with the key named.
  nlohmann::json j = nlohmann::json(t);
  EXPECT_EQ(j["inter_node"]["busbw_by_nodes"].size(), 3u);
  j["inter_node"]["busbw_by_nodes"] = nlohmann::json::array({{8, 40.0}, {4, 45.0}});
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "increasing");
  j["inter_node"]["busbw_by_nodes"] = nlohmann::json::array({{8, -1.0}});
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "busbw_by_nodes");
  j["inter_node"]["busbw_by_nodes"] = "fast";
  expect_config_error([&] { topology_from_json(j, "t.json"); }, "busbw_by_nodes");
}

TEST(TopologyTest, ResolveNamesPresetsAndFiles) {
  expect_config_error([] { resolve_topology("dgx-b200"); }, "dgx-h100");
  const auto dir =
      std::filesystem::temp_directory_path() / ("canzona-topology-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto bad = dir / "bad.json";
  std::ofstream(bad) << "{ not json";
  expect_config_error([&] { resolve_topology(bad.string()); }, "not valid JSON");
  const auto good = dir / "good.json";
  nlohmann::json j = nlohmann::json(topology_preset("dgx-h200"));
  j["name"] = "my-cluster";
  std::ofstream(good) << j.dump();
  EXPECT_EQ(resolve_topology(good.string()).name, "my-cluster");
  std::filesystem::remove_all(dir);
}

TEST(TopologyTest, CollectiveNamesParseIncludingNcclTestsBinaries) {
  EXPECT_EQ(parse_collective_class("all_reduce_perf"), CollectiveClass::kAllReduce);
  EXPECT_EQ(parse_collective_class("alltoall"), CollectiveClass::kAllToAll);
  EXPECT_EQ(parse_collective_class("reduce_scatter"), CollectiveClass::kReduceScatter);
  EXPECT_EQ(parse_collective_class("reduce"), CollectiveClass::kBroadcast);
  expect_config_error([] { parse_collective_class("hypercube"); }, "all_gather");
}

}  // namespace
}  // namespace canzona::sim
