// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Request: completion by polling against the collective timeout, and the bounded drop of a
// pending request.
#include "canzona/comm/request.hpp"

#include <canzona/core/thread_cpu_time.hpp>

#include "canzona/comm/timeout.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace canzona::comm {
namespace {

// Set once any wait in this process failed or timed out: the job is ending, and pending requests
// dropped during unwinding must not wait (each could take another full timeout).
std::atomic<bool>& comm_failed() {
  static std::atomic<bool> failed{false};
  return failed;
}

// Keeps the state of a request that never completed alive until the process exits: the backend
// may still write into its buffers (and the caller's), so freeing it would be a use-after-free
// waiting to happen, and the job is ending anyway. Held by a never-destroyed list rather than
// dropped, so leak checkers see it as reachable, not lost.
void abandon(std::unique_ptr<RequestState> state) {
  static std::mutex mutex;
  static auto* abandoned = new std::vector<std::unique_ptr<RequestState>>();
  const std::lock_guard<std::mutex> lock(mutex);
  abandoned->push_back(std::move(state));
}

// Polls until the state completes or `timeout` passes; false on timeout. Yields between polls so
// that oversubscribed ranks (more ranks than cores) let their peers run, as MPI_Wait does with
// mpi_yield_when_idle.
bool poll_until_done(RequestState& state, std::chrono::duration<double> timeout) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  for (std::uint64_t polls = 0;; ++polls) {
    if (state.test()) return true;
    if (polls % 64 == 0 && std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
}

}  // namespace

std::string RequestOrigin::describe() const {
  return fmt::format("{} on {} group '{}' (rank {} of {})", op, backend.empty() ? "a" : backend,
                     group, rank, size);
}

Request::~Request() { finish_quietly(); }

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    finish_quietly();
    state_ = std::move(other.state_);
    origin_ = std::move(other.origin_);
  }
  return *this;
}

namespace {
thread_local double wait_cpu_seconds = 0;

// Adds the thread CPU time of its scope to wait_cpu_seconds, however the scope ends.
class WaitCpuClock {
 public:
  WaitCpuClock() : start_(thread_cpu_seconds()) {}
  ~WaitCpuClock() {
    try {
      wait_cpu_seconds += thread_cpu_seconds() - start_;
    } catch (...) {  // the clock cannot fail on Linux; a destructor must not throw anyway
    }
  }
  WaitCpuClock(const WaitCpuClock&) = delete;
  WaitCpuClock& operator=(const WaitCpuClock&) = delete;

 private:
  double start_;
};
}  // namespace

double thread_wait_cpu_seconds() noexcept { return wait_cpu_seconds; }

void Request::wait() {
  if (state_ == nullptr) {
    return;
  }
  const WaitCpuClock clock;
  const std::chrono::duration<double> timeout = collective_timeout();
  bool done = false;
  try {
    if (timeout.count() == 0) {
      state_->wait();
      done = true;
    } else {
      done = poll_until_done(*state_, timeout);
    }
  } catch (...) {
    comm_failed().store(true);
    state_.reset();
    throw;
  }
  if (!done) {
    comm_failed().store(true);
    // The process must end (the job cannot continue past a lost collective); until then the
    // backend may still write into the state's buffers.
    abandon(std::move(state_));
    throw CollectiveTimeoutError(fmt::format(
        "collective timeout: {} did not complete within {:g} s; a peer rank is stalled, has died "
        "or is waiting in a different collective (set CANZONA_COLLECTIVE_TIMEOUT_S to change the "
        "limit, 0 waits forever)",
        origin_.describe(), timeout.count()));
  }
  state_.reset();
}

bool Request::test() {
  if (state_ == nullptr) {
    return true;
  }
  if (state_->test()) {
    state_.reset();
    return true;
  }
  return false;
}

void Request::finish_quietly() noexcept {
  if (state_ == nullptr) {
    return;
  }
  // The backend may still touch the caller's buffers (and our staging memory), so dropping a
  // pending request must wait; a destructor cannot throw, so failures are only logged.
  if (comm_failed().load()) {
    abandon(std::move(state_));  // see wait(): the job is ending
    return;
  }
  try {
    wait();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "canzona: warning: pending comm request failed while dropped: %s\n",
                 e.what());
  } catch (...) {
    std::fprintf(stderr, "canzona: warning: pending comm request failed while dropped\n");
  }
  state_.reset();
}

void wait_all(std::span<Request> requests) {
  for (Request& request : requests) {
    request.wait();
  }
}

}  // namespace canzona::comm
