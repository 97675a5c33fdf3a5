// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Micro-group formation modes no / single / slot / global of paper-spec §4.3.
#include "canzona/plan/micro_groups.hpp"

#include "canzona/plan/cost.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

namespace canzona::plan {
namespace {

constexpr std::string_view kModeNames[] = {"no", "single", "slot", "global"};

MicroGroup empty_group(int tp) {
  MicroGroup g;
  const auto n = static_cast<std::size_t>(tp);
  g.slots.resize(n);
  g.slot_cost.assign(n, 0.0);
  g.slot_numel.assign(n, 0);
  return g;
}

bool is_empty(const MicroGroup& g) {
  return std::all_of(g.slots.begin(), g.slots.end(),
                     [](const std::vector<std::size_t>& s) { return s.empty(); });
}

void place(MicroGroup& g, std::size_t slot, const MicroGroupItem& item) {
  g.slots[slot].push_back(item.id);
  g.slot_cost[slot] += item.cost;
  g.slot_numel[slot] += item.numel;
}

// The LPT target: the least cost-loaded slot, ties to the lowest index (the min-heap of (load,
// slot) of the reference). A linear scan is exact and cheap for TP degrees of <= a few dozen.
std::size_t least_loaded(const MicroGroup& g) {
  return static_cast<std::size_t>(std::min_element(g.slot_cost.begin(), g.slot_cost.end()) -
                                  g.slot_cost.begin());
}

std::int64_t max_numel(const MicroGroup& g) {
  return *std::max_element(g.slot_numel.begin(), g.slot_numel.end());
}

void validate(const std::vector<MicroGroupItem>& items, int tp, std::int64_t capacity) {
  if (tp < 1) {
    throw ConfigError(
        fmt::format("micro-groups: tp={} is invalid; the tensor-parallel degree must be >= 1", tp));
  }
  if (capacity < 0) {
    throw ConfigError(fmt::format(
        "micro-groups: capacity={} is invalid; use elements per slot >= 1, or 0 for unbounded",
        capacity));
  }
  std::int64_t total = 0;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const MicroGroupItem& it = items[k];
    if (!std::isfinite(it.cost) || it.cost < 0.0) {
      throw ConfigError(fmt::format(
          "micro-groups: item id {} (position {}) has cost {}; costs must be finite and >= 0",
          it.id, k, it.cost));
    }
    if (it.numel < 0) {
      throw ConfigError(
          fmt::format("micro-groups: item id {} (position {}) has numel {}; numel must be >= 0",
                      it.id, k, it.numel));
    }
    if (it.numel > std::numeric_limits<std::int64_t>::max() - total) {
      throw ConfigError("micro-groups: the total numel of the items overflows int64");
    }
    total += it.numel;
  }
}

// Positions 0..n-1 by cost, largest first: equal costs keep model order.
std::vector<std::size_t> by_cost_desc_stable(const std::vector<MicroGroupItem>& items) {
  std::vector<double> costs(items.size());
  std::transform(items.begin(), items.end(), costs.begin(),
                 [](const MicroGroupItem& item) { return item.cost; });
  return largest_first(costs);
}

// kNo / kSingle: consecutive chunks of tp items, i-th item of a chunk in slot i.
std::vector<MicroGroup> chunked(const std::vector<MicroGroupItem>& items,
                                const std::vector<std::size_t>& order, int tp) {
  std::vector<MicroGroup> groups;
  const auto t = static_cast<std::size_t>(tp);
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (k % t == 0) {
      groups.push_back(empty_group(tp));
    }
    place(groups.back(), k % t, items[order[k]]);
  }
  return groups;
}

std::vector<MicroGroup> slot_mode(const std::vector<MicroGroupItem>& items, int tp,
                                  std::int64_t capacity) {
  // Documented promotion: an item larger than the capacity raises it instead of failing. A zero
  // capacity stays unbounded (never closes a group) rather than being promoted.
  std::int64_t cap = capacity;
  if (cap > 0) {
    for (const MicroGroupItem& it : items) {
      cap = std::max(cap, it.numel);
    }
  }
  std::vector<MicroGroup> groups;
  MicroGroup current = empty_group(tp);
  for (std::size_t pos : by_cost_desc_stable(items)) {
    place(current, least_loaded(current), items[pos]);
    if (cap > 0 && max_numel(current) >= cap) {
      groups.push_back(std::move(current));
      current = empty_group(tp);
    }
  }
  if (!is_empty(current)) {
    groups.push_back(std::move(current));
  }
  return groups;
}

std::vector<MicroGroup> global_mode(const std::vector<MicroGroupItem>& items, int tp,
                                    std::int64_t capacity) {
  if (capacity > 0) {
    std::int64_t needed = 0;
    for (const MicroGroupItem& it : items) {
      needed = std::max(needed, it.numel);
    }
    for (std::size_t k = 0; k < items.size(); ++k) {
      if (items[k].numel > capacity) {
        throw ConfigError(fmt::format(
            "micro-groups: item id {} (position {}) has {} elements, more than the capacity of {} "
            "elements per slot; global mode needs capacity >= {} (the largest item), or 0 for "
            "unbounded",
            items[k].id, k, items[k].numel, capacity, needed));
      }
    }
  }
  // Sorted by (cost, model index) descending, as the reference's sorted(..., reverse=True).
  std::vector<std::size_t> order(items.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (items[a].cost != items[b].cost) {
      return items[a].cost > items[b].cost;
    }
    return a > b;
  });

  // The candidate is always a contiguous run of `order`, which is already cost-descending, so
  // LPT(candidate) is the previous LPT state plus the new item in its least-loaded slot: the
  // per-candidate recomputation of the pseudocode (O(n²·log T)) becomes one step (O(T)), with
  // identical sums. `current` is LPT(candidate); the rollback is just not placing the item.
  std::vector<MicroGroup> groups;
  MicroGroup current = empty_group(tp);
  std::int64_t cand_numel = 0;
  const auto t = static_cast<std::int64_t>(tp);
  std::size_t i = 0;
  while (i < order.size()) {
    const MicroGroupItem& it = items[order[i]];
    const std::size_t slot = least_loaded(current);
    bool overflow = false;
    if (capacity > 0) {
      const std::int64_t sum = cand_numel + it.numel;  // cannot overflow: validate() bounded Σ
      // (Σ numel)/T > cap, without forming cap·T; implied by the slot test, kept as the early-out
      // of the pseudocode.
      const bool mean_over = sum > 0 && (sum - 1) / t >= capacity;
      const bool slot_over =
          std::max(max_numel(current), current.slot_numel[slot] + it.numel) > capacity;
      overflow = mean_over || slot_over;
    }
    if (overflow) {
      if (is_empty(current)) {
        // Unreachable after the capacity pre-check (a lone item fits); kept from the pseudocode.
        MicroGroup alone = empty_group(tp);
        place(alone, 0, it);
        groups.push_back(std::move(alone));
        ++i;
      } else {
        groups.push_back(std::move(current));  // items[i] starts the next group
      }
      current = empty_group(tp);
      cand_numel = 0;
    } else {
      place(current, slot, it);
      cand_numel += it.numel;
      ++i;
    }
  }
  if (!is_empty(current)) {
    groups.push_back(std::move(current));
  }
  return groups;
}

}  // namespace

double MicroGroup::max_slot_cost() const {
  return slot_cost.empty() ? 0.0 : *std::max_element(slot_cost.begin(), slot_cost.end());
}

std::string_view to_string(MicroGroupMode mode) {
  switch (mode) {
    case MicroGroupMode::kNo:
      return kModeNames[0];
    case MicroGroupMode::kSingle:
      return kModeNames[1];
    case MicroGroupMode::kSlot:
      return kModeNames[2];
    case MicroGroupMode::kGlobal:
      return kModeNames[3];
  }
  return "unknown";
}

MicroGroupMode parse_micro_group_mode(std::string_view text) {
  constexpr MicroGroupMode kModes[] = {MicroGroupMode::kNo, MicroGroupMode::kSingle,
                                       MicroGroupMode::kSlot, MicroGroupMode::kGlobal};
  for (MicroGroupMode m : kModes) {
    if (text == to_string(m)) {
      return m;
    }
  }
  throw ConfigError(
      fmt::format("unknown micro-group mode '{}'; choose one of: no, single, slot, global", text));
}

std::vector<MicroGroup> form_micro_groups(const std::vector<MicroGroupItem>& items, int tp,
                                          const MicroGroupOptions& options) {
  validate(items, tp, options.capacity);
  switch (options.mode) {
    case MicroGroupMode::kNo: {
      std::vector<std::size_t> order(items.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      return chunked(items, order, tp);
    }
    case MicroGroupMode::kSingle:
      return chunked(items, by_cost_desc_stable(items), tp);
    case MicroGroupMode::kSlot:
      return slot_mode(items, tp, options.capacity);
    case MicroGroupMode::kGlobal:
      return global_mode(items, tp, options.capacity);
  }
  throw ConfigError(
      fmt::format("micro-groups: invalid mode value {}", static_cast<int>(options.mode)));
}

double critical_path(const std::vector<MicroGroup>& groups) {
  double total = 0.0;
  for (const MicroGroup& g : groups) {
    total += g.max_slot_cost();
  }
  return total;
}

MicroGroup lpt(std::vector<MicroGroupItem> items, int tp) {
  validate(items, tp, 0);
  std::stable_sort(
      items.begin(), items.end(),
      [](const MicroGroupItem& a, const MicroGroupItem& b) { return a.cost > b.cost; });
  MicroGroup g = empty_group(tp);
  for (const MicroGroupItem& it : items) {
    place(g, least_loaded(g), it);
  }
  return g;
}

}  // namespace canzona::plan
