// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Micro-group formation: the §4.3 test vector, guaranteed properties on random items, errors.
#include <canzona/core/error.hpp>
#include <canzona/plan/micro_groups.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace canzona::plan {
namespace {

using Slots = std::vector<std::vector<std::size_t>>;

constexpr MicroGroupMode kAllModes[] = {MicroGroupMode::kNo, MicroGroupMode::kSingle,
                                        MicroGroupMode::kSlot, MicroGroupMode::kGlobal};

// Items with cost = numel, ids = model positions.
std::vector<MicroGroupItem> items_of(const std::vector<std::int64_t>& numels) {
  std::vector<MicroGroupItem> items;
  for (std::size_t k = 0; k < numels.size(); ++k) {
    items.push_back({k, static_cast<double>(numels[k]), numels[k]});
  }
  return items;
}

std::vector<MicroGroupItem> paper_vector() { return items_of({2, 9, 1, 5, 7, 3, 6, 2, 4, 5}); }

std::vector<MicroGroup> form(const std::vector<MicroGroupItem>& items, int tp, MicroGroupMode mode,
                             std::int64_t capacity) {
  return form_micro_groups(items, tp, MicroGroupOptions{mode, capacity});
}

std::vector<Slots> slots_of(const std::vector<MicroGroup>& groups) {
  std::vector<Slots> out;
  for (const MicroGroup& g : groups) {
    out.push_back(g.slots);
  }
  return out;
}

std::vector<std::vector<double>> loads_of(const std::vector<MicroGroup>& groups) {
  std::vector<std::vector<double>> out;
  for (const MicroGroup& g : groups) {
    out.push_back(g.slot_cost);
  }
  return out;
}

// The global pseudocode of §4.3 verbatim, recomputing LPT for every candidate (O(n²·T)), with the
// capacity bounding Σ numel per slot. The library's incremental version must match it exactly.
std::vector<MicroGroup> reference_global(const std::vector<MicroGroupItem>& items, int tp,
                                         std::int64_t cap) {
  std::vector<std::size_t> order(items.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    order[k] = k;
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (items[a].cost != items[b].cost) {
      return items[a].cost > items[b].cost;
    }
    return a > b;
  });
  std::vector<MicroGroup> out;
  std::vector<MicroGroupItem> cand;
  std::size_t i = 0;
  while (i < order.size()) {
    cand.push_back(items[order[i]]);
    bool overflow = false;
    if (cap > 0) {
      std::int64_t sum = 0;
      for (const MicroGroupItem& c : cand) {
        sum += c.numel;
      }
      const MicroGroup trial = lpt(cand, tp);
      const std::int64_t max_slot =
          *std::max_element(trial.slot_numel.begin(), trial.slot_numel.end());
      overflow = static_cast<double>(sum) / tp > static_cast<double>(cap) || max_slot > cap;
    }
    if (overflow) {
      cand.pop_back();
      if (cand.empty()) {
        out.push_back(lpt({items[order[i]]}, tp));
        ++i;
      } else {
        out.push_back(lpt(cand, tp));
      }
      cand.clear();
    } else {
      ++i;
    }
  }
  if (!cand.empty()) {
    out.push_back(lpt(cand, tp));
  }
  return out;
}

bool same_groups(const std::vector<MicroGroup>& a, const std::vector<MicroGroup>& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t g = 0; g < a.size(); ++g) {
    if (a[g].slots != b[g].slots || a[g].slot_cost != b[g].slot_cost ||
        a[g].slot_numel != b[g].slot_numel) {
      return false;
    }
  }
  return true;
}

std::string error_of(const std::vector<MicroGroupItem>& items, int tp, MicroGroupMode mode,
                     std::int64_t capacity) {
  try {
    form(items, tp, mode, capacity);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected ConfigError for mode " << to_string(mode) << " tp=" << tp
                << " capacity=" << capacity;
  return {};
}

TEST(MicroGroupTest, ModeNamesRoundTrip) {
  EXPECT_EQ(to_string(MicroGroupMode::kNo), "no");
  EXPECT_EQ(to_string(MicroGroupMode::kSingle), "single");
  EXPECT_EQ(to_string(MicroGroupMode::kSlot), "slot");
  EXPECT_EQ(to_string(MicroGroupMode::kGlobal), "global");
  for (MicroGroupMode m : kAllModes) {
    EXPECT_EQ(parse_micro_group_mode(to_string(m)), m);
  }
  EXPECT_EQ(MicroGroupOptions{}.mode, MicroGroupMode::kGlobal);
  EXPECT_EQ(MicroGroupOptions{}.capacity, 0);
}

TEST(MicroGroupTest, UnknownModeStringListsTheChoices) {
  for (const char* bad : {"", "Global", "balanced", "none"}) {
    try {
      parse_micro_group_mode(bad);
      ADD_FAILURE() << "expected ConfigError for '" << bad << "'";
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string("'") + bad + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("no, single, slot, global"), std::string::npos) << what;
    }
  }
}

// §4.3 test vector: T=4, cap=12, costs = numels [2,9,1,5,7,3,6,2,4,5]. Slot contents are compared
// in order: the within-slot order the library produces (LPT assignment order) is the table's.
TEST(MicroGroupTest, PaperVectorNo) {
  const auto groups = form(paper_vector(), 4, MicroGroupMode::kNo, 12);
  EXPECT_EQ(slots_of(groups),
            (std::vector<Slots>{{{0}, {1}, {2}, {3}}, {{4}, {5}, {6}, {7}}, {{8}, {9}, {}, {}}}));
  EXPECT_EQ(loads_of(groups),
            (std::vector<std::vector<double>>{{2, 9, 1, 5}, {7, 3, 6, 2}, {4, 5, 0, 0}}));
  EXPECT_DOUBLE_EQ(critical_path(groups), 21.0);
}

TEST(MicroGroupTest, PaperVectorSingle) {
  const auto groups = form(paper_vector(), 4, MicroGroupMode::kSingle, 12);
  EXPECT_EQ(slots_of(groups),
            (std::vector<Slots>{{{1}, {4}, {6}, {3}}, {{9}, {8}, {5}, {0}}, {{7}, {2}, {}, {}}}));
  EXPECT_EQ(loads_of(groups),
            (std::vector<std::vector<double>>{{9, 7, 6, 5}, {5, 4, 3, 2}, {2, 1, 0, 0}}));
  EXPECT_DOUBLE_EQ(critical_path(groups), 16.0);
}

TEST(MicroGroupTest, PaperVectorSlot) {
  const auto groups = form(paper_vector(), 4, MicroGroupMode::kSlot, 12);
  EXPECT_EQ(slots_of(groups),
            (std::vector<Slots>{{{1, 0}, {4, 5, 7}, {6, 8}, {3, 9}}, {{2}, {}, {}, {}}}));
  EXPECT_EQ(loads_of(groups), (std::vector<std::vector<double>>{{11, 12, 10, 10}, {1, 0, 0, 0}}));
  EXPECT_DOUBLE_EQ(critical_path(groups), 13.0);
}

TEST(MicroGroupTest, PaperVectorGlobal) {
  const auto groups = form(paper_vector(), 4, MicroGroupMode::kGlobal, 12);
  EXPECT_EQ(slots_of(groups), (std::vector<Slots>{{{1, 7}, {4, 5, 0}, {6, 8, 2}, {9, 3}}}));
  EXPECT_EQ(loads_of(groups), (std::vector<std::vector<double>>{{11, 12, 11, 10}}));
  EXPECT_EQ(groups[0].slot_numel, (std::vector<std::int64_t>{11, 12, 11, 10}));
  EXPECT_DOUBLE_EQ(critical_path(groups), 12.0);
  EXPECT_TRUE(same_groups(groups, reference_global(paper_vector(), 4, 12)));
}

TEST(MicroGroupTest, PaperVectorGlobalRollsBackUnderATighterCapacity) {
  // cap 10 < the table's 12: LPT of the first 8 sorted items would put 11 elements in slot 0, so
  // the 8th item (p7, cost 2) is rolled back and starts the second group.
  const auto groups = form(paper_vector(), 4, MicroGroupMode::kGlobal, 10);
  EXPECT_EQ(slots_of(groups),
            (std::vector<Slots>{{{1}, {4, 5}, {6, 8}, {9, 3}}, {{7}, {0}, {2}, {}}}));
  EXPECT_EQ(loads_of(groups), (std::vector<std::vector<double>>{{9, 10, 10, 10}, {2, 2, 1, 0}}));
  EXPECT_DOUBLE_EQ(critical_path(groups), 12.0);
  EXPECT_TRUE(same_groups(groups, reference_global(paper_vector(), 4, 10)));
}

TEST(MicroGroupTest, LptFillsTheLeastLoadedSlotWithTiesToTheLowestIndex) {
  // Stable cost sort: ids 0 and 2 tie at 3 and keep their order; slot ties go to the lower index.
  const MicroGroup g = lpt(items_of({3, 5, 3, 1, 1}), 2);
  // 5 -> s0; 3 (id 0) -> s1; 3 (id 2) -> s1; 1 -> s0 (5 < 6); 1 -> s0 (6 = 6, lower index).
  EXPECT_EQ(g.slots, (Slots{{1, 3, 4}, {0, 2}}));
  EXPECT_EQ(g.slot_cost, (std::vector<double>{7, 6}));
  EXPECT_EQ(g.slot_numel, (std::vector<std::int64_t>{7, 6}));
  EXPECT_DOUBLE_EQ(g.max_slot_cost(), 7.0);
  EXPECT_EQ(lpt({}, 3).slots, (Slots{{}, {}, {}}));
  EXPECT_DOUBLE_EQ(MicroGroup{}.max_slot_cost(), 0.0);
}

TEST(MicroGroupTest, CapacityBoundsElementsWhileLptBalancesCost) {
  // A FLOPs-like cost that is not numel: LPT sends the cheap item 1 next to item 2 by cost, but
  // that slot would hold 20 > 10 elements, so global rolls it back into a second group.
  const std::vector<MicroGroupItem> items = {{0, 100.0, 10}, {1, 1.0, 10}, {2, 1.0, 10}};
  const auto groups = form(items, 2, MicroGroupMode::kGlobal, 10);
  EXPECT_EQ(slots_of(groups), (std::vector<Slots>{{{0}, {2}}, {{1}, {}}}));
  const auto unbounded = form(items, 2, MicroGroupMode::kGlobal, 0);
  EXPECT_EQ(slots_of(unbounded), (std::vector<Slots>{{{0}, {2, 1}}}));
  // slot closes a group on elements too: every placement fills a slot to 10 elements.
  const auto slot = form(items, 2, MicroGroupMode::kSlot, 10);
  EXPECT_EQ(slots_of(slot), (std::vector<Slots>{{{0}, {}}, {{1}, {}}, {{2}, {}}}));
}

TEST(MicroGroupTest, ZeroCapacityIsUnboundedAndEmptyInputGivesNoGroups) {
  const auto items = paper_vector();
  const auto slot = form(items, 4, MicroGroupMode::kSlot, 0);
  ASSERT_EQ(slot.size(), 1u);
  EXPECT_TRUE(same_groups(slot, {lpt(items, 4)}));  // both sort stably: ties keep model order
  EXPECT_EQ(slots_of(slot), (std::vector<Slots>{{{1, 0}, {4, 5, 7}, {6, 8, 2}, {3, 9}}}));
  const auto global = form(items, 4, MicroGroupMode::kGlobal, 0);
  EXPECT_EQ(slots_of(global), (std::vector<Slots>{{{1, 7}, {4, 5, 0}, {6, 8, 2}, {9, 3}}}));
  for (MicroGroupMode m : kAllModes) {
    EXPECT_TRUE(form({}, 4, m, 12).empty()) << to_string(m);
  }
}

TEST(MicroGroupTest, SlotPromotesACapacityBelowTheLargestItem) {
  // cap 3 < 9: slot uses cap' = 9 (documented) where global refuses.
  const auto groups = form(paper_vector(), 4, MicroGroupMode::kSlot, 3);
  std::size_t seen = 0;
  for (const MicroGroup& g : groups) {
    for (std::int64_t n : g.slot_numel) {
      EXPECT_LT(n, 9 + 9);
    }
    for (const auto& s : g.slots) {
      seen += s.size();
    }
  }
  EXPECT_EQ(seen, 10u);
  EXPECT_EQ(groups.front().slots[0], (std::vector<std::size_t>{1}));  // 9 alone reaches cap'
}

TEST(MicroGroupTest, RejectsBadInput) {
  const auto items = paper_vector();
  for (MicroGroupMode m : kAllModes) {
    SCOPED_TRACE(std::string(to_string(m)));
    EXPECT_NE(error_of(items, 0, m, 12).find("tp=0"), std::string::npos);
    EXPECT_NE(error_of(items, -2, m, 12).find("tp=-2"), std::string::npos);
    EXPECT_NE(error_of(items, 4, m, -1).find("capacity=-1"), std::string::npos);
    auto neg_cost = items;
    neg_cost[3].cost = -1.0;
    EXPECT_NE(error_of(neg_cost, 4, m, 12).find("item id 3"), std::string::npos);
    auto nan_cost = items;
    nan_cost[5].cost = std::numeric_limits<double>::quiet_NaN();
    EXPECT_NE(error_of(nan_cost, 4, m, 12).find("item id 5"), std::string::npos);
    auto neg_numel = items;
    neg_numel[7].numel = -4;
    EXPECT_NE(error_of(neg_numel, 4, m, 12).find("numel -4"), std::string::npos);
    const std::vector<MicroGroupItem> huge = {{0, 1.0, std::numeric_limits<std::int64_t>::max()},
                                              {1, 1.0, 1}};
    EXPECT_NE(error_of(huge, 4, m, 0).find("overflows"), std::string::npos);
  }
  EXPECT_THROW(lpt(items, 0), ConfigError);
  auto neg_cost = items;
  neg_cost[0].cost = -0.5;
  EXPECT_THROW(lpt(neg_cost, 4), ConfigError);
}

TEST(MicroGroupTest, GlobalRejectsAnItemAboveTheCapacity) {
  auto items = paper_vector();
  items[1].id = 41;  // the 9-element item
  const std::string what = error_of(items, 4, MicroGroupMode::kGlobal, 8);
  EXPECT_NE(what.find("item id 41"), std::string::npos) << what;
  EXPECT_NE(what.find("capacity of 8"), std::string::npos) << what;
  EXPECT_NE(what.find("capacity >= 9"), std::string::npos) << what;
  EXPECT_NO_THROW(form(items, 4, MicroGroupMode::kGlobal, 9));
  EXPECT_NO_THROW(form(items, 4, MicroGroupMode::kSlot, 8));
}

// Guaranteed properties on random items; ids are shuffled so they differ from positions.
TEST(MicroGroupTest, RandomItemsSatisfyTheGuaranteedProperties) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (CANZONA_TEST_SEED reproduces)");
  std::mt19937_64 rng(seed);
  constexpr int kCases = 400;
  for (int c = 0; c < kCases; ++c) {
    const int tp = std::vector<int>{1, 2, 3, 4, 8}[rng() % 5];
    const std::size_t n = rng() % 41;
    const bool cost_is_numel = rng() % 2 == 0;
    const bool small_values = rng() % 3 == 0;  // many exact ties
    std::vector<std::size_t> ids(n);
    for (std::size_t k = 0; k < n; ++k) {
      ids[k] = 1000 + k;
    }
    std::shuffle(ids.begin(), ids.end(), rng);
    std::vector<MicroGroupItem> items;
    std::int64_t max_numel = 0;
    double max_cost = 0.0;
    double sum_cost = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t numel = small_values ? static_cast<std::int64_t>(rng() % 6)
                                              : static_cast<std::int64_t>(1 + rng() % 1000000);
      const double cost = cost_is_numel ? static_cast<double>(numel)
                                        : std::ldexp(static_cast<double>(rng() % (1u << 20)), 10);
      items.push_back({ids[k], cost, numel});
      max_numel = std::max(max_numel, numel);
      max_cost = std::max(max_cost, cost);
      sum_cost += cost;
    }
    // 0 (unbounded) or between the largest item and a few items' worth.
    const std::int64_t capacity =
        rng() % 4 == 0
            ? 0
            : std::max<std::int64_t>(1, max_numel) +
                  static_cast<std::int64_t>(rng() % (3 * std::max<std::int64_t>(1, max_numel)));
    for (MicroGroupMode mode : kAllModes) {
      SCOPED_TRACE("case " + std::to_string(c) + " mode " + std::string(to_string(mode)) + " tp " +
                   std::to_string(tp) + " n " + std::to_string(n) + " capacity " +
                   std::to_string(capacity));
      const auto groups = form(items, tp, mode, capacity);
      ASSERT_TRUE(same_groups(groups, form(items, tp, mode, capacity))) << "not deterministic";

      std::map<std::size_t, int> seen;
      std::map<std::size_t, const MicroGroupItem*> by_id;
      for (const MicroGroupItem& it : items) {
        by_id[it.id] = &it;
      }
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const MicroGroup& grp = groups[g];
        ASSERT_EQ(grp.slots.size(), static_cast<std::size_t>(tp));
        ASSERT_EQ(grp.slot_cost.size(), static_cast<std::size_t>(tp));
        ASSERT_EQ(grp.slot_numel.size(), static_cast<std::size_t>(tp));
        std::size_t in_group = 0;
        for (std::size_t s = 0; s < grp.slots.size(); ++s) {
          double cost = 0.0;
          std::int64_t numel = 0;
          for (std::size_t id : grp.slots[s]) {
            ++seen[id];
            ASSERT_TRUE(by_id.count(id) == 1) << "unknown id " << id;
            cost += by_id[id]->cost;
            numel += by_id[id]->numel;
          }
          in_group += grp.slots[s].size();
          EXPECT_DOUBLE_EQ(grp.slot_cost[s], cost);
          EXPECT_EQ(grp.slot_numel[s], numel);
          if (mode == MicroGroupMode::kNo || mode == MicroGroupMode::kSingle) {
            EXPECT_LE(grp.slots[s].size(), 1u);
          }
          if (mode == MicroGroupMode::kGlobal && capacity > 0) {
            EXPECT_LE(numel, capacity) << "group " << g << " slot " << s;
          }
          if (mode == MicroGroupMode::kSlot && capacity > 0) {
            // Documented bound: < cap' + largest numel, cap' = max(capacity, largest numel).
            EXPECT_LT(numel, std::max(capacity, max_numel) + max_numel);
          }
        }
        EXPECT_GT(in_group, 0u) << "empty group " << g;
        if (mode == MicroGroupMode::kSlot && capacity > 0 && g + 1 < groups.size()) {
          // Only a slot reaching cap' closes a group.
          EXPECT_GE(*std::max_element(grp.slot_numel.begin(), grp.slot_numel.end()),
                    std::max(capacity, max_numel));
        }
      }
      EXPECT_EQ(seen.size(), n);
      for (const auto& [id, count] : seen) {
        EXPECT_EQ(count, 1) << "id " << id;
      }
      if (mode == MicroGroupMode::kNo || mode == MicroGroupMode::kSingle) {
        EXPECT_EQ(groups.size(), (n + tp - 1) / tp);
      }
      if ((mode == MicroGroupMode::kSlot || mode == MicroGroupMode::kGlobal) && capacity == 0) {
        EXPECT_EQ(groups.size(), n == 0 ? 0u : 1u);
      }
      if (mode == MicroGroupMode::kGlobal) {
        EXPECT_TRUE(same_groups(groups, reference_global(items, tp, capacity)))
            << "differs from the literal pseudocode";
      }
      const double path = critical_path(groups);
      const double tol = 1e-9 * std::max(1.0, sum_cost);
      EXPECT_GE(path + tol, max_cost);
      EXPECT_GE(path + tol, sum_cost / tp);
      if (tp == 1) {
        // One slot per group: the path is the plain total.
        EXPECT_NEAR(path, sum_cost, tol);
      }
    }
  }
}

TEST(MicroGroupTest, TpOneDegeneratesToOneSlotPerGroup) {
  const auto items = paper_vector();
  EXPECT_EQ(slots_of(form(items, 1, MicroGroupMode::kNo, 12)).size(), 10u);
  EXPECT_EQ(slots_of(form(items, 1, MicroGroupMode::kSingle, 12)).front(), (Slots{{1}}));
  // global at cap 12 with one slot: (cost, index)-descending order 9 | 7 | 6+5 | 5+4+3 | 2+2+1.
  const auto global = form(items, 1, MicroGroupMode::kGlobal, 12);
  EXPECT_EQ(slots_of(global),
            (std::vector<Slots>{{{1}}, {{4}}, {{6, 9}}, {{3, 8, 5}}, {{7, 0, 2}}}));
  EXPECT_DOUBLE_EQ(critical_path(global), 44.0);  // Σ cost: nothing runs in parallel
}

}  // namespace
}  // namespace canzona::plan
