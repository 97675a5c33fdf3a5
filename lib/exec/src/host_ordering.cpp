// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The host ordering: a backend synchronisation before each collective, a host wait after.
#include "canzona/exec/comm_ordering.hpp"

namespace canzona::exec {
namespace {

class HostOrdering final : public CommOrdering {
 public:
  explicit HostOrdering(backend::Backend& backend) : backend_(backend) {}
  // The collective reads memory the backend may still be writing (cuda): drain the stream.
  void comm_after_backend(comm::Communicator& /*comm*/) override { backend_.synchronize(); }
  // Once the host has seen completion, anything enqueued afterwards is ordered after it.
  void backend_after(comm::Request& request) override { request.wait(); }

 private:
  backend::Backend& backend_;
};

}  // namespace

std::unique_ptr<CommOrdering> make_host_ordering(backend::Backend& backend) {
  return std::make_unique<HostOrdering>(backend);
}

}  // namespace canzona::exec
