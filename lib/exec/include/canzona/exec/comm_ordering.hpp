// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How the executor orders collectives and backend work on the same buffers. The step logic only
// calls this interface, so the same code drives cpu + MPI and cuda + NCCL.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/comm/communicator.hpp>
#include <canzona/comm/request.hpp>

#include <memory>

namespace canzona::exec {

/// The two orderings a step needs between the backend's stream and a communicator.
class CommOrdering {
 public:
  virtual ~CommOrdering() = default;
  /// Called right before a collective is issued on `comm` whose send buffers were written by
  /// backend work (packing copies, optimizer steps): the collective must see that work.
  virtual void comm_after_backend(comm::Communicator& comm) = 0;
  /// Called before backend work that reads or overwrites what `request` moves: that work must
  /// start after the request completed. May complete the request (and block the host).
  virtual void backend_after(comm::Request& request) = 0;
};

/// Host ordering (the default for cpu + MPI), correct for every backend and communicator:
/// comm_after_backend synchronises the backend (a no-op on cpu), backend_after waits for the
/// request on the host. With cuda + NCCL it costs host round trips, but keeps the designed overlap:
/// a collective is in flight while the backend computes the previous micro-group. `backend` must
/// outlive the ordering.
std::unique_ptr<CommOrdering> make_host_ordering(backend::Backend& backend);

/// Stream ordering for the cuda backend with NCCL communicators; no host synchronisation.
/// comm_after_backend(comm): an event recorded on the backend's stream now, which comm's NCCL
/// stream waits for (NcclCommunicator::order_after), so the collective enqueued next sees every
/// packing copy and optimizer step enqueued before it (a non-NCCL comm gets a backend
/// synchronisation instead). backend_after(request): the backend stream waits for the
/// request's completion event (NcclCommunicator::make_wait), and the request is retired: the
/// caller's handle becomes complete at once and the ordering keeps the event until a
/// non-blocking test sees it done (surfacing NCCL's asynchronous errors) or the ordering is
/// destroyed (which then waits). Requests must come from NcclCommunicators. ConfigError for a
/// backend other than cuda, or in a build without CUDA and NCCL.
std::unique_ptr<CommOrdering> make_stream_ordering(backend::Backend& backend);

/// True when `backend` is the cuda backend and `dp` and `tp` are NCCL communicators in a build
/// with CUDA and NCCL: then the executor defaults to the stream ordering and the event timer.
bool uses_device_streams(const backend::Backend& backend, const comm::Communicator& dp,
                         const comm::Communicator& tp);

/// make_stream_ordering when uses_device_streams(backend, dp, tp), make_host_ordering
/// otherwise (cpu + MPI, or any pairing the executor's start-up check will refuse anyway).
std::unique_ptr<CommOrdering> make_default_ordering(backend::Backend& backend,
                                                    const comm::Communicator& dp,
                                                    const comm::Communicator& tp);

}  // namespace canzona::exec
