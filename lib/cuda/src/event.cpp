// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Event: timing and sync-only CUDA events, stream ordering and elapsed time.
#include "canzona/cuda/event.hpp"

#include "canzona/cuda/check.hpp"
#include "canzona/cuda/host_wait.hpp"

#include <utility>

namespace canzona::cuda {

Event::Event(unsigned flags) : timed_((flags & cudaEventDisableTiming) == 0) {
  CANZONA_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
}

Event Event::timing() { return Event(cudaEventDefault); }
Event Event::sync() { return Event(cudaEventDisableTiming); }

Event::~Event() { reset(); }

Event::Event(Event&& other) noexcept
    : event_(std::exchange(other.event_, nullptr)), timed_(std::exchange(other.timed_, false)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    reset();
    event_ = std::exchange(other.event_, nullptr);
    timed_ = std::exchange(other.timed_, false);
  }
  return *this;
}

void Event::record(StreamView stream) { CANZONA_CUDA_CHECK(cudaEventRecord(event_, stream)); }

void Event::make_wait(StreamView stream) const {
  CANZONA_CUDA_CHECK(cudaStreamWaitEvent(stream, event_, 0));
}

void Event::synchronize() const { CANZONA_CUDA_CHECK(cudaEventSynchronize(event_)); }

void Event::synchronize(std::chrono::duration<double> timeout, std::string_view what) const {
  const cudaEvent_t event = event_;
  wait_on_host([event] { return cudaEventQuery(event); }, timeout, what);
}

bool Event::query() const {
  const cudaError_t status = cudaEventQuery(event_);
  if (status == cudaErrorNotReady) {
    // Not an error: cudaEventQuery reports "still running" through the error channel.
    (void)cudaGetLastError();
    return false;
  }
  CANZONA_CUDA_CHECK(status);
  return true;
}

void Event::reset() noexcept {
  if (event_ != nullptr) {
    CANZONA_CUDA_WARN(cudaEventDestroy(event_));
    event_ = nullptr;
  }
}

float elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0.0F;
  CANZONA_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  return ms;
}

}  // namespace canzona::cuda
