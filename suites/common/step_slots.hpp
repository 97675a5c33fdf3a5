// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The executor's timer slots as the suites record and report them.
#pragma once

#include <canzona/exec/step_timer.hpp>

#include <cstddef>
#include <string>

namespace canzona::bench::step {

/// The executor's timer slots, in exec::TimerSlot order; each is reported as the counter
/// `<exec::to_string(slot)>_ms`.
inline constexpr std::size_t kSlots = exec::kTimerSlots;
/// The slot that is part of the others (time blocked on collectives), not a phase of its own.
inline constexpr std::size_t kIdleSlot = static_cast<std::size_t>(exec::TimerSlot::kIdle);
/// The counter of slot `s`.
inline std::string slot_counter(std::size_t s) {
  return std::string(exec::to_string(static_cast<exec::TimerSlot>(s))) + "_ms";
}

}  // namespace canzona::bench::step
