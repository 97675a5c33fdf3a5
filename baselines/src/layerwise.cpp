// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Layer-wise assignments: NVIDIA ping-pong by numel, round-robin, LPT by cost.
#include "canzona/baselines/layerwise.hpp"

#include <canzona/core/error.hpp>
#include <canzona/plan/cost.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>
#include <queue>
#include <utility>

namespace canzona::baselines {
namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

constexpr LayerwiseMode kModes[] = {LayerwiseMode::kPingPongNumel, LayerwiseMode::kRoundRobin,
                                    LayerwiseMode::kLpt};

}  // namespace

std::string_view to_string(LayerwiseMode mode) {
  switch (mode) {
    case LayerwiseMode::kPingPongNumel:
      return "pingpong";
    case LayerwiseMode::kRoundRobin:
      return "roundrobin";
    case LayerwiseMode::kLpt:
      return "lpt";
  }
  return "unknown";
}

LayerwiseMode parse_layerwise_mode(std::string_view text) {
  for (const LayerwiseMode mode : kModes) {
    if (equals_ignoring_case(text, to_string(mode))) {
      return mode;
    }
  }
  throw ConfigError(
      fmt::format("unknown layer-wise mode '{}'; choose one of: pingpong, roundrobin, lpt", text));
}

std::vector<int> layerwise_assignment(std::span<const std::int64_t> numels,
                                      std::span<const double> costs, int ranks,
                                      LayerwiseMode mode) {
  if (ranks < 1 || numels.size() != costs.size()) {
    throw ConfigError(
        fmt::format("layer-wise assignment: {} numels, {} costs, {} ranks (need one "
                    "numel and one cost per item, and ranks >= 1)",
                    numels.size(), costs.size(), ranks));
  }
  const std::size_t n = numels.size();
  std::vector<int> owner(n, 0);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  switch (mode) {
    case LayerwiseMode::kRoundRobin:
      for (std::size_t i = 0; i < n; ++i) {
        owner[i] = static_cast<int>(i % static_cast<std::size_t>(ranks));
      }
      break;
    case LayerwiseMode::kPingPongNumel: {
      // Ascending numel, and the direction flips every R items so that the ranks which got the
      // smallest items of one sweep get the largest of the next.
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return numels[a] < numels[b]; });
      const auto r = static_cast<std::size_t>(ranks);
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t sweep = k / r;
        const std::size_t idx = k % r;
        owner[order[k]] = static_cast<int>(sweep % 2 == 0 ? idx : r - 1 - idx);
      }
      break;
    }
    case LayerwiseMode::kLpt: {
      order = plan::largest_first(costs);
      // Min-heap on (load, rank): the pair order breaks load ties toward the lower rank.
      using Slot = std::pair<double, int>;
      std::priority_queue<Slot, std::vector<Slot>, std::greater<>> heap;
      for (int q = 0; q < ranks; ++q) {
        heap.emplace(0.0, q);
      }
      for (const std::size_t i : order) {
        auto [load, q] = heap.top();
        heap.pop();
        owner[i] = q;
        heap.emplace(load + costs[i], q);
      }
      break;
    }
  }
  return owner;
}

}  // namespace canzona::baselines
