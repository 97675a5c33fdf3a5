// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Request: completion, polling and the blocking drop of a pending request.
#include "canzona/comm/request.hpp"

#include <cstdio>
#include <exception>

namespace canzona::comm {

Request::~Request() { finish_quietly(); }

Request& Request::operator=(Request&& other) noexcept {
  if (this != &other) {
    finish_quietly();
    state_ = std::move(other.state_);
  }
  return *this;
}

void Request::wait() {
  if (state_ != nullptr) {
    state_->wait();
    state_.reset();
  }
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
  try {
    state_->wait();
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
