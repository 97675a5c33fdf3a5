// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Per-rank phase timers of one executor step. The executor only calls the StepTimer interface,
// so a device timer (CUDA events on the backend stream) can replace the host clock without
// touching the step logic.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/plan/step_plan.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <string_view>

namespace canzona::exec {

/// What a rank's step time is spent on. The first five are the plan's phases (plan::Phase);
/// kUpdate is the AdamW step of the element-wise buffers; kIdle is time blocked on requests.
/// The phase slots (everything but kIdle) do not overlap and cover the step up to bookkeeping;
/// kIdle is the part of them spent waiting for collectives to complete.
enum class TimerSlot { kGradSync, kTpGather, kCompute, kTpScatter, kParamSync, kUpdate, kIdle };

/// Number of TimerSlot values.
inline constexpr std::size_t kTimerSlots = 7;

/// The plan phase's name (plan::to_string) for a phase slot, plan::kUpdatePhaseName,
/// plan::kIdleName.
std::string_view to_string(TimerSlot slot);

/// The slot that measures a plan phase.
TimerSlot slot_of(plan::Phase phase);

/// Seconds per slot of one step, and the step's total (begin_step to end_step).
struct StepTimes {
  std::array<double, kTimerSlots> seconds{};
  double total = 0;
  double operator[](TimerSlot slot) const { return seconds[static_cast<std::size_t>(slot)]; }
};

/// Accumulates the time spent in each slot between begin_step() and end_step(). A slot may be
/// started and stopped many times per step (the TP pipeline alternates gather, compute and
/// scatter); start/stop pairs of one slot never nest. Used by one thread.
class StepTimer {
 public:
  virtual ~StepTimer() = default;
  /// Zeroes every slot and marks the step start.
  virtual void begin_step() = 0;
  virtual void start(TimerSlot slot) = 0;
  virtual void stop(TimerSlot slot) = 0;
  /// Marks the step end.
  virtual void end_step() = 0;
  /// Times of the last completed step. A device timer may synchronise here, never earlier.
  virtual StepTimes last_step() = 0;
};

/// std::chrono::steady_clock on the host: exact for synchronous backends (cpu + MPI). For an
/// asynchronous backend it measures host time, i.e. enqueue time plus the host waits the
/// executor's CommOrdering makes.
std::unique_ptr<StepTimer> make_host_timer();

/// CUDA timing events on the cuda backend's stream (the step's critical path): a slot is the
/// device time from its start() to its stop() on that stream (copies, kernels and stalls on
/// collectives), kIdle the stream's stalls on collective completion events (the exposed
/// communication), total begin_step to end_step. Collectives run on the NCCL streams and are
/// seen only through those stalls, so, as with the host timer, the phase slots do not overlap.
/// Nothing blocks inside a step: four event sets rotate and begin_step reuses the set of the step
/// four back after a non-blocking query, waiting only when the host has run four steps ahead of
/// the device (which bounds the run-ahead); last_step() synchronises on the last step's end
/// event. The event pool grows during the first steps only.
/// ConfigError for a backend other than cuda, or in a build without CUDA.
std::unique_ptr<StepTimer> make_event_timer(backend::Backend& backend);

/// make_event_timer when uses_device_streams(backend, dp, tp) (comm_ordering.hpp),
/// make_host_timer otherwise.
std::unique_ptr<StepTimer> make_default_timer(backend::Backend& backend,
                                              const comm::Communicator& dp,
                                              const comm::Communicator& tp);

/// Starts `slot` on construction and stops it on destruction.
class ScopedSlot {
 public:
  ScopedSlot(StepTimer& timer, TimerSlot slot) : timer_(timer), slot_(slot) { timer_.start(slot_); }
  ~ScopedSlot() { timer_.stop(slot_); }
  ScopedSlot(const ScopedSlot&) = delete;
  ScopedSlot& operator=(const ScopedSlot&) = delete;

 private:
  StepTimer& timer_;
  TimerSlot slot_;
};

}  // namespace canzona::exec
