// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The CUDA-event StepTimer: timing events on the cuda backend's stream, read after the step.
#include "canzona/exec/step_timer.hpp"
#include "device_parts.hpp"

#include <canzona/comm/timeout.hpp>
#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>
#include <canzona/cuda/event.hpp>
#include <canzona/cuda/stream.hpp>
#include "cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <vector>

namespace canzona::exec {
namespace {

// start/stop pairs one step of a large plan records; the pools grow past it only in warm-up.
constexpr std::size_t kMarksCapacity = 1024;

// Every event goes on the backend stream, the stream the step's critical path runs on: a slot
// measures the device time the backend spent from its start() to its stop() (copies, optimizer
// kernels, and stalls on collectives), kIdle the stalls alone (the stream waiting for a
// collective's completion event), i.e. the exposed communication. Collectives themselves run on
// the NCCL streams and show up only through those stalls. Like the host timer, the phase slots
// then do not overlap and sum to about the step's total.
class EventTimer final : public StepTimer {
 public:
  explicit EventTimer(backend::Backend& backend) : stream_(backend::cuda_stream(backend)) {
    CANZONA_CUDA_CHECK(cudaStreamGetDevice(stream_.get(), &device_));
    for (Record& r : records_) r.marks.reserve(kMarksCapacity);
  }

  // kRecords records rotate, so step n records while earlier steps may still run on the device.
  // Reusing step n − kRecords's record needs its events complete; normally they are (the check
  // is a non-blocking query), and the host waits only when it has run kRecords steps ahead of
  // the device, which bounds the run-ahead without a host synchronisation in ordinary steps.
  void begin_step() override {
    current_ = (current_ + 1) % kRecords;
    Record& r = records_[current_];
    if (r.pending) resolve(r);
    r.used = 0;
    r.marks.clear();
    r.open.fill(kNone);
    r.begin = record(r);
  }

  void start(TimerSlot slot) override {
    Record& r = records_[current_];
    r.open[index(slot)] = record(r);
  }

  void stop(TimerSlot slot) override {
    Record& r = records_[current_];
    const std::size_t i = index(slot);
    if (r.open[i] == kNone)
      throw Error(fmt::format("StepTimer: stop({}) without start", to_string(slot)));
    r.marks.push_back(Mark{slot, r.open[i], record(r)});
    r.open[i] = kNone;
  }

  void end_step() override {
    Record& r = records_[current_];
    r.end = record(r);
    r.pending = true;
    latest_ = current_;
  }

  StepTimes last_step() override {
    Record& r = records_[latest_];
    if (r.pending) resolve(r);
    return last_;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static std::size_t index(TimerSlot slot) { return static_cast<std::size_t>(slot); }

  struct Mark {
    TimerSlot slot;
    std::size_t start = 0;
    std::size_t stop = 0;
  };
  struct Record {
    std::vector<cuda::Event> events;  // pool; the first `used` are recorded this step
    std::size_t used = 0;
    std::vector<Mark> marks;
    std::array<std::size_t, kTimerSlots> open{};
    std::size_t begin = 0;
    std::size_t end = 0;
    bool pending = false;
  };

  // Records the next pooled event on the backend stream (creating it during warm-up only).
  std::size_t record(Record& r) {
    if (r.used == r.events.size()) {
      const cuda::DeviceGuard guard(device_);
      r.events.push_back(cuda::Event::timing());
    }
    r.events[r.used].record(stream_);
    return r.used++;
  }

  // Waits for the record's end event (a query first: a finished step costs no host wait), then
  // reads every elapsed time of it.
  void resolve(Record& r) {
    if (!r.events[r.end].query()) {
      r.events[r.end].synchronize(
          comm::collective_timeout(),
          "the step timer's end-of-step event (bounded by CANZONA_COLLECTIVE_TIMEOUT_S)");
    }
    StepTimes t;
    t.total = seconds(r, r.begin, r.end);
    for (const Mark& m : r.marks) t.seconds[index(m.slot)] += seconds(r, m.start, m.stop);
    r.pending = false;
    // Only the newest resolved step is reported; an older one resolved late does not win.
    if (&r == &records_[latest_]) last_ = t;
  }

  static double seconds(const Record& r, std::size_t start, std::size_t stop) {
    return 1e-3 * static_cast<double>(cuda::elapsed_ms(r.events[start], r.events[stop]));
  }

  static constexpr std::size_t kRecords = 4;

  cuda::StreamView stream_;
  int device_ = 0;
  std::array<Record, kRecords> records_;
  std::size_t current_ = kRecords - 1;  // the first begin_step moves to 0
  std::size_t latest_ = 0;
  StepTimes last_;
};

}  // namespace

namespace detail {

StepTimer* new_event_timer(backend::Backend& backend) { return new EventTimer(backend); }

}  // namespace detail

}  // namespace canzona::exec
