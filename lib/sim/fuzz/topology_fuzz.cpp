// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Topology files (`project --topology FILE`, `calibrate --base FILE`): parse and validate, then
// cost one collective on what parsed (every accepted topology must give finite times).
#include <canzona/core/fuzz_contract.hpp>

#include <canzona/sim/collective_model.hpp>
#include <canzona/sim/topology.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  canzona::fuzz::expect_value_or_config_error("topology", [&] {
    const canzona::sim::Topology topology =
        canzona::sim::topology_from_json_text(canzona::fuzz::as_text(data, size), "fuzz.json");
    // Two full nodes: both link levels take part.
    std::vector<int> ranks(static_cast<std::size_t>(std::min(2 * topology.gpus_per_node, 4096)));
    for (std::size_t r = 0; r < ranks.size(); ++r) ranks[r] = static_cast<int>(r);
    const auto placement = canzona::sim::place_group(ranks, topology.gpus_per_node);
    for (const auto kind :
         {canzona::sim::CollectiveClass::kAllReduce, canzona::sim::CollectiveClass::kAllToAll}) {
      const double seconds =
          canzona::sim::estimate_collective(topology, kind, 1 << 30, placement).seconds;
      if (!std::isfinite(seconds) || seconds < 0) std::abort();
    }
  });
  return 0;
}
