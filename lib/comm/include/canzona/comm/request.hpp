// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Request: the move-only handle every collective returns. Backends complete it through their own
// RequestState (an MPI_Request, or a CUDA event recorded after the NCCL enqueue).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace canzona::comm {

/// Which collective a request belongs to, for the messages of a timeout or a failure.
struct RequestOrigin {
  std::string_view op = "collective";  ///< a name with static storage ("all_reduce")
  std::string_view backend;            ///< "mpi" or "nccl" (static storage)
  std::string group;                   ///< the communicator's name ("dp", "tp", "world")
  int rank = -1;                       ///< this rank in the group
  int size = 0;                        ///< ranks in the group

  /// "all_reduce on mpi group 'dp' (rank 1 of 2)".
  std::string describe() const;
};

/// Backend-side state of one in-flight operation. Implementations own whatever must outlive the
/// call (MPI count arrays, staging buffers, the completion event).
class RequestState {
 public:
  virtual ~RequestState() = default;
  /// Blocks until the operation has finished; throws canzona::Error subclasses on failure. Used
  /// only when the collective timeout is 0 (wait forever).
  virtual void wait() = 0;
  /// Non-blocking completion check (also drives MPI progress); must never block, since
  /// Request::wait polls it against the collective timeout. True once finished.
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
/// because the backend may still be reading or writing the caller's buffers; that wait is
/// bounded by the collective timeout too, and skipped once a wait in this process has failed
/// (the job is going down; waiting would only delay the abort).
class Request {
 public:
  Request() noexcept = default;
  explicit Request(std::unique_ptr<RequestState> state) noexcept : state_(std::move(state)) {}
  ~Request();
  Request(Request&&) noexcept = default;
  Request& operator=(Request&& other) noexcept;
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;

  /// Blocks until complete, polling test() until collective_timeout() (timeout.hpp) has passed;
  /// releases the backend state. A no-op on a complete request. Throws CollectiveTimeoutError
  /// naming the collective, the group and the rank when the timeout passes, and the backend's
  /// error when the operation failed; either way the job cannot go on (the operation may still
  /// own the buffers), so the caller's job should end.
  void wait();
  /// True when complete (then the state is released); never blocks.
  bool test();
  /// True until completion has been observed by wait() or test().
  bool pending() const noexcept { return state_ != nullptr; }
  /// The backend state while pending, nullptr once complete. For backend-specific helpers.
  RequestState* state() const noexcept { return state_.get(); }

  /// Labels the request for messages (set by Communicator when it starts the collective).
  void set_origin(RequestOrigin origin) { origin_ = std::move(origin); }
  const RequestOrigin& origin() const noexcept { return origin_; }

 private:
  void finish_quietly() noexcept;
  std::unique_ptr<RequestState> state_;
  RequestOrigin origin_;
};

/// Waits for every request, in order.
void wait_all(std::span<Request> requests);

/// CPU time the calling thread has spent inside Request::wait since it started, seconds. MPI
/// spins while it waits for a peer, so a rank whose peer was descheduled burns CPU time that is
/// not its own work: the optimizer-step suite subtracts this from a step's CPU time (its
/// `cpu_ms`, what the regression gate judges cpu rows by).
double thread_wait_cpu_seconds() noexcept;

}  // namespace canzona::comm
