// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The step's phase names have one home (plan::reported_phase_names): the executor's timer slots
// are named from it, one slot per reported phase, plus idle.
#include <canzona/exec/step_timer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string_view>

namespace canzona::exec {
namespace {

TEST(PhaseNamesTest, EveryTimerSlotIsAReportedPhaseOrIdle) {
  const auto& reported = plan::reported_phase_names();
  std::set<std::string_view> slot_names;
  for (std::size_t s = 0; s < kTimerSlots; ++s) {
    const auto slot = static_cast<TimerSlot>(s);
    const std::string_view name = to_string(slot);
    EXPECT_TRUE(slot_names.insert(name).second) << name << " names two slots";
    if (slot == TimerSlot::kIdle) {
      EXPECT_EQ(name, plan::kIdleName);
    } else {
      EXPECT_NE(std::find(reported.begin(), reported.end(), name), reported.end())
          << name << " is not one of plan::reported_phase_names()";
    }
  }
  // Every reported phase is timed by exactly one slot.
  for (const std::string_view phase : reported) EXPECT_TRUE(slot_names.contains(phase)) << phase;
  EXPECT_EQ(slot_names.size(), reported.size() + 1);
}

TEST(PhaseNamesTest, PlanPhasesKeepThePlansNames) {
  for (std::size_t i = 0; i < plan::kPhaseCount; ++i) {
    const auto phase = static_cast<plan::Phase>(i);
    EXPECT_EQ(to_string(slot_of(phase)), plan::to_string(phase));
  }
  EXPECT_EQ(to_string(TimerSlot::kUpdate), plan::kUpdatePhaseName);
}

}  // namespace
}  // namespace canzona::exec
