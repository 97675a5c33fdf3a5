// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Request: the move-only handle every collective returns. Backends complete it through their own
// RequestState (an MPI_Request, or a CUDA event recorded after the NCCL enqueue).
#pragma once

#include <memory>
#include <span>

namespace canzona::comm {

/// Backend-side state of one in-flight operation. Implementations own whatever must outlive the
/// call (MPI count arrays, staging buffers, the completion event).
class RequestState {
 public:
  virtual ~RequestState() = default;
  /// Blocks until the operation has finished; throws canzona::Error subclasses on failure.
  virtual void wait() = 0;
  /// Non-blocking completion check (also drives MPI progress). True once finished.
  virtual bool test() = 0;
};

/// Handle of an asynchronous collective.
///
/// "Complete" means the operation finished as far as this rank's buffers are concerned: the send
/// buffer may be overwritten and the receive buffer holds the result. For the NCCL backend that
/// is device completion, observed on the host (see NcclCommunicator for ordering another stream
/// after a request without a host synchronisation).
///
/// A default-constructed request is already complete. Move-only. Destroying a request that was
/// never completed blocks until it completes (errors are then logged to stderr, not thrown),
/// because the backend may still be reading or writing the caller's buffers.
class Request {
 public:
  Request() noexcept = default;
  explicit Request(std::unique_ptr<RequestState> state) noexcept : state_(std::move(state)) {}
  ~Request();
  Request(Request&&) noexcept = default;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  /// Blocks until complete; releases the backend state. A no-op on a complete request.
  void wait();
  /// True when complete (then the state is released); never blocks.
  bool test();
  /// True until completion has been observed by wait() or test().
  bool pending() const noexcept { return state_ != nullptr; }
  /// The backend state while pending, nullptr once complete. For backend-specific helpers.
  RequestState* state() const noexcept { return state_.get(); }

 private:
  void finish_quietly() noexcept;
  std::unique_ptr<RequestState> state_;
};

/// Waits for every request, in order.
void wait_all(std::span<Request> requests);

}  // namespace canzona::comm
