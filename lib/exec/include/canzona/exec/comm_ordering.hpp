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

/// Host ordering, correct for every backend and communicator: comm_after_backend synchronises
/// the backend (a no-op on cpu), backend_after waits for the request on the host. With cuda +
/// NCCL it costs host round trips, but keeps the designed overlap: a collective is in flight
/// while the backend computes the previous micro-group. `backend` must outlive the ordering.
std::unique_ptr<CommOrdering> make_host_ordering(backend::Backend& backend);

}  // namespace canzona::exec
