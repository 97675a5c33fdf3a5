// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Slot names and the steady-clock host timer.
#include "canzona/exec/step_timer.hpp"

#include <canzona/core/error.hpp>

#include <chrono>

namespace canzona::exec {
namespace {

class HostTimer final : public StepTimer {
 public:
  void begin_step() override {
    current_ = StepTimes{};
    step_start_ = Clock::now();
  }
  void start(TimerSlot slot) override { started_[index(slot)] = Clock::now(); }
  void stop(TimerSlot slot) override {
    const std::size_t i = index(slot);
    current_.seconds[i] += seconds_since(started_[i]);
  }
  void end_step() override {
    current_.total = seconds_since(step_start_);
    last_ = current_;
  }
  StepTimes last_step() override { return last_; }

 private:
  using Clock = std::chrono::steady_clock;
  static std::size_t index(TimerSlot slot) { return static_cast<std::size_t>(slot); }
  static double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
  }

  Clock::time_point step_start_{};
  std::array<Clock::time_point, kTimerSlots> started_{};
  StepTimes current_;
  StepTimes last_;
};

}  // namespace

std::string_view to_string(TimerSlot slot) {
  // The plan's phases keep the plan's names; only the two slots that are not plan phases are
  // named here.
  if (slot == TimerSlot::kUpdate) return plan::kUpdatePhaseName;
  if (slot == TimerSlot::kIdle) return plan::kIdleName;
  for (std::size_t i = 0; i < plan::kPhaseCount; ++i) {
    const auto phase = static_cast<plan::Phase>(i);
    if (slot_of(phase) == slot) return plan::to_string(phase);
  }
  throw Error("unknown TimerSlot");
}

TimerSlot slot_of(plan::Phase phase) {
  switch (phase) {
    case plan::Phase::kGradSync:
      return TimerSlot::kGradSync;
    case plan::Phase::kTpGather:
      return TimerSlot::kTpGather;
    case plan::Phase::kCompute:
      return TimerSlot::kCompute;
    case plan::Phase::kTpScatter:
      return TimerSlot::kTpScatter;
    case plan::Phase::kParamSync:
      return TimerSlot::kParamSync;
  }
  throw Error("unknown plan::Phase");
}

std::unique_ptr<StepTimer> make_host_timer() { return std::make_unique<HostTimer>(); }

}  // namespace canzona::exec
