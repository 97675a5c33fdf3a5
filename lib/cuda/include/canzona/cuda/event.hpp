// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CUDA events: timing events for GPU-side measurement, and cheaper sync-only events for
// stream-to-stream ordering without a host synchronisation.
#pragma once

#include "canzona/cuda/stream.hpp"

#include <cuda_runtime_api.h>

#include <chrono>
#include <string_view>

namespace canzona::cuda {

/// Owns a cudaEvent_t created on the current device. Move-only.
class Event {
 public:
  /// An event that records timestamps (for elapsed_ms).
  static Event timing();
  /// An event created with cudaEventDisableTiming: only for ordering and completion queries,
  /// and cheaper to record and wait on.
  static Event sync();

  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const noexcept { return event_; }
  operator cudaEvent_t() const noexcept { return event_; }  // NOLINT
  bool timed() const noexcept { return timed_; }

  /// Captures the work enqueued on `stream` so far (cudaEventRecord). Asynchronous.
  void record(StreamView stream);
  /// Makes future work on `stream` wait for this event (cudaStreamWaitEvent); no host sync.
  void make_wait(StreamView stream) const;
  /// Blocks the host until the recorded work has finished.
  void synchronize() const;
  /// The same, bounded: wait_on_host (host_wait.hpp) on cudaEventQuery.
  void synchronize(std::chrono::duration<double> timeout, std::string_view what) const;
  /// True when the recorded work has finished (or nothing was recorded); never blocks.
  bool query() const;

 private:
  explicit Event(unsigned flags);
  void reset() noexcept;

  cudaEvent_t event_ = nullptr;
  bool timed_ = false;
};

/// Milliseconds between two recorded timing events (cudaEventElapsedTime). Both must have
/// completed; throws CudaError otherwise (cudaErrorNotReady) or when either is a sync() event.
float elapsed_ms(const Event& start, const Event& stop);

}  // namespace canzona::cuda
