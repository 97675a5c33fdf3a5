// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The stream ordering (cuda backend + NCCL): events between the backend's stream and each NCCL
// communicator's stream, no host synchronisation.
#include "canzona/exec/comm_ordering.hpp"
#include "device_parts.hpp"

#include <canzona/comm/nccl_communicator.hpp>
#include <canzona/core/error.hpp>
#include <canzona/cuda/stream.hpp>
#include "cuda_backend.hpp"

#include <cstddef>
#include <utility>
#include <vector>

namespace canzona::exec {
namespace {

// Requests retired without a host wait: more than a step of the largest plans keeps in flight,
// so the list never reallocates inside a step.
constexpr std::size_t kRetiredCapacity = 1024;

class StreamOrdering final : public CommOrdering {
 public:
  explicit StreamOrdering(backend::Backend& backend)
      : backend_(backend), stream_(backend::cuda_stream(backend)) {
    retired_.reserve(kRetiredCapacity);
  }

  // Everything drops its completion event only after it completed (Request's destructor waits),
  // which by then costs nothing: the executor synchronises the backend before destroying us,
  // and the backend stream waited for every retired request.
  ~StreamOrdering() override = default;

  // The NCCL stream waits for an event recorded on the backend stream now: the collective
  // enqueued next sees every packing copy and optimizer step enqueued so far.
  void comm_after_backend(comm::Communicator& comm) override {
    if (auto* nccl = dynamic_cast<comm::NcclCommunicator*>(&comm)) {
      nccl->order_after(stream_);
      return;
    }
    backend_.synchronize();  // not NCCL: only the host knows the backend is done
  }

  // The backend stream waits for the request's completion event (recorded on the NCCL stream
  // right after the collective); the host does not. The request is retired here so the
  // caller's slot is complete and can take the next collective without blocking; retired
  // requests are dropped once a non-blocking test() sees them done (which also surfaces NCCL's
  // asynchronous errors).
  void backend_after(comm::Request& request) override {
    if (!request.pending()) return;
    comm::NcclCommunicator::make_wait(request, stream_);
    prune();
    retired_.push_back(std::move(request));
  }

 private:
  void prune() {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < retired_.size(); ++i) {
      if (!retired_[i].test()) {
        if (kept != i) retired_[kept] = std::move(retired_[i]);
        ++kept;
      }
    }
    retired_.resize(kept);
  }

  backend::Backend& backend_;
  cuda::StreamView stream_;
  std::vector<comm::Request> retired_;
};

}  // namespace

namespace detail {

CommOrdering* new_stream_ordering(backend::Backend& backend) { return new StreamOrdering(backend); }

}  // namespace detail

}  // namespace canzona::exec
