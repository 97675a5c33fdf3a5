// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NCCL backend: collectives enqueued on the communicator's stream; uneven reduce-scatter and
// all-gather as grouped rooted collectives (Canzona's RS-v / AG-v).
#include "canzona/comm/nccl_communicator.hpp"

#include "canzona/comm/nccl_check.hpp"

#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <utility>

#if CANZONA_WITH_MPI
#include "canzona/comm/mpi_communicator.hpp"
#include "mpi_check.hpp"
#endif

namespace canzona::comm {
namespace {

// Completion = a sync-only event recorded after the enqueue; waiting never touches the stream,
// so other work may keep flowing into it.
class NcclRequestState final : public RequestState {
 public:
  NcclRequestState(cuda::Event event, ncclComm_t comm, int device)
      : event_(std::move(event)), comm_(comm), device_(device) {}

  void wait() override {
    event_.synchronize();
    check_async();
  }
  bool test() override {
    if (!event_.query()) {
      return false;
    }
    check_async();
    return true;
  }
  const cuda::Event& event() const noexcept { return event_; }

 private:
  void check_async() const {
    ncclResult_t async = ncclSuccess;
    CANZONA_NCCL_CHECK(ncclCommGetAsyncError(comm_, &async), comm_);
    CANZONA_NCCL_CHECK(async, comm_);
  }

  cuda::Event event_;
  ncclComm_t comm_;
  int device_;
};

ncclDataType_t nccl_type(DataType type) {
  switch (type) {
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
    case DataType::kBFloat16:
      return ncclBfloat16;
    case DataType::kFloat16:
      return ncclFloat16;
    case DataType::kInt32:
      return ncclInt32;
    case DataType::kInt64:
      return ncclInt64;
    case DataType::kUInt8:
      return ncclUint8;
  }
  throw ConfigError("invalid comm::DataType value " + std::to_string(static_cast<int>(type)));
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return ncclSum;
    case ReduceOp::kMax:
      return ncclMax;
    case ReduceOp::kMin:
      return ncclMin;
  }
  throw ConfigError("invalid comm::ReduceOp value " + std::to_string(static_cast<int>(op)));
}

const std::byte* at(const void* base, std::size_t elements, std::size_t element_size) {
  return static_cast<const std::byte*>(base) + elements * element_size;
}

std::byte* at(void* base, std::size_t elements, std::size_t element_size) {
  return static_cast<std::byte*>(base) + elements * element_size;
}

bool all_equal(std::span<const std::size_t> counts) {
  return std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
}

template <typename T>
T on_device(int device, auto&& make) {
  const cuda::DeviceGuard guard(device);
  return make();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Construction and teardown

NcclCommunicator::NcclCommunicator(NcclComm comm, std::string name)
    : Communicator(comm.rank(), comm.size(), std::move(name)),
      comm_(std::move(comm)),
      device_(comm_.device()),
      stream_(on_device<cuda::Stream>(device_, [] { return cuda::Stream(); })),
      producer_event_(on_device<cuda::Event>(device_, [] { return cuda::Event::sync(); })),
      barrier_word_(on_device<cuda::DeviceBuffer<float>>(
          device_, [] { return cuda::DeviceBuffer<float>(1); })) {}

#if CANZONA_WITH_MPI
std::unique_ptr<NcclCommunicator> NcclCommunicator::create(MpiCommunicator& bootstrap,
                                                           std::string name, int device) {
  if (device < 0) {
    const NodeRanks node = bootstrap.node_ranks();
    const int devices = cuda_device_count();
    if (node.local_size > devices) {
      throw ConfigError(fmt::format(
          "NcclCommunicator::create: {} ranks share this node but it has {} CUDA device(s); NCCL "
          "needs one GPU per rank: launch at most {} ranks per node",
          node.local_size, devices, devices));
    }
    device = node.local_rank;
  }
  NcclUniqueId id;
  if (bootstrap.rank() == 0) {
    id = NcclUniqueId::create();
  }
  // Raw MPI_Bcast on the bootstrap's communicator: keeps the bootstrap out of its trace.
  CANZONA_MPI_CHECK(MPI_Bcast(id.bytes().data(), static_cast<int>(id.bytes().size()), MPI_BYTE, 0,
                              bootstrap.native()));
  NcclComm comm = NcclComm::init_rank(id, bootstrap.size(), bootstrap.rank(), device);
  return std::unique_ptr<NcclCommunicator>(new NcclCommunicator(std::move(comm), std::move(name)));
}
#endif

std::vector<std::unique_ptr<NcclCommunicator>> NcclCommunicator::create_local(
    std::span<const int> devices, std::string name) {
  if (devices.empty()) {
    throw ConfigError("NcclCommunicator::create_local: no devices given");
  }
  std::vector<NcclComm> comms = NcclComm::init_all(devices);
  std::vector<std::unique_ptr<NcclCommunicator>> result;
  result.reserve(comms.size());
  for (NcclComm& comm : comms) {
    result.push_back(
        std::unique_ptr<NcclCommunicator>(new NcclCommunicator(std::move(comm), name)));
  }
  return result;
}

NcclCommunicator::~NcclCommunicator() = default;

void NcclCommunicator::finalize() {
  if (!comm_) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  stream_.synchronize();
  comm_.finalize();
}

void NcclCommunicator::check_usable(std::string_view call) const {
  if (!comm_) {
    fail(call, "the communicator was finalized");
  }
}

void NcclCommunicator::order_after(cuda::StreamView producer) {
  const cuda::DeviceGuard guard(device_);
  producer_event_.record(producer);
  producer_event_.make_wait(stream_);
}

void NcclCommunicator::make_wait(const Request& request, cuda::StreamView consumer) {
  if (const auto* state = dynamic_cast<const NcclRequestState*>(request.state())) {
    state->event().make_wait(consumer);
  }
}

Request NcclCommunicator::finish() {
  cuda::Event event = cuda::Event::sync();
  event.record(stream_);
  return Request(std::make_unique<NcclRequestState>(std::move(event), comm_.get(), device_));
}

template <typename Fn>
void NcclCommunicator::group(Fn&& issue) {
  CANZONA_NCCL_CHECK(ncclGroupStart(), comm_.get());
  try {
    issue();
  } catch (...) {
    // Close the group so NCCL's thread-local group depth stays balanced for the next call.
    CANZONA_NCCL_WARN(ncclGroupEnd(), comm_.get());
    throw;
  }
  // Returns once everything is enqueued on stream(), not when it has completed.
  CANZONA_NCCL_CHECK(ncclGroupEnd(), comm_.get());
}

void NcclCommunicator::copy_on_stream(void* dst, const void* src, std::size_t bytes) {
  if (bytes > 0 && dst != src) {
    CANZONA_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_));
  }
}

std::unique_ptr<Communicator> NcclCommunicator::do_split(int color, int key, std::string name) {
  check_usable("split");
  NcclComm child = comm_.split(color, key);
  if (!child) {
    return nullptr;
  }
  return std::unique_ptr<Communicator>(new NcclCommunicator(std::move(child), std::move(name)));
}

// ---------------------------------------------------------------------------------------------
// Collectives. Each one: device guard, enqueue on stream_, record the completion event.

Request NcclCommunicator::do_all_reduce(const void* send, void* recv, std::size_t count,
                                        DataType type, ReduceOp op) {
  check_usable("all_reduce");
  const cuda::DeviceGuard guard(device_);
  if (count > 0) {
    CANZONA_NCCL_CHECK(
        ncclAllReduce(send, recv, count, nccl_type(type), nccl_op(op), comm_, stream_.get()),
        comm_.get());
  }
  return finish();
}

Request NcclCommunicator::do_reduce_scatter(const void* send, void* recv,
                                            std::span<const std::size_t> counts,
                                            std::span<const std::size_t> displs, DataType type,
                                            ReduceOp op) {
  check_usable("reduce_scatter");
  const cuda::DeviceGuard guard(device_);
  const ncclDataType_t t = nccl_type(type);
  const ncclRedOp_t o = nccl_op(op);
  const std::size_t e = size_of(type);
  if (all_equal(counts)) {
    if (counts[0] > 0) {
      CANZONA_NCCL_CHECK(ncclReduceScatter(send, recv, counts[0], t, o, comm_, stream_.get()),
                         comm_.get());
    }
    return finish();
  }
  // RS-v: part i is reduced onto rank i. Off the root NCCL never writes recvbuff; it gets the
  // part's own (valid, device) address so no pointer check can trip on a null.
  group([&] {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] == 0) {
        continue;
      }
      const int root = static_cast<int>(i);
      const std::byte* part = at(send, displs[i], e);
      void* target = root == rank() ? recv : const_cast<std::byte*>(part);
      CANZONA_NCCL_CHECK(ncclReduce(part, target, counts[i], t, o, root, comm_, stream_.get()),
                         comm_.get());
    }
  });
  return finish();
}

Request NcclCommunicator::do_all_gather(const void* send, void* recv,
                                        std::span<const std::size_t> counts,
                                        std::span<const std::size_t> displs, DataType type) {
  check_usable("all_gather");
  const cuda::DeviceGuard guard(device_);
  const ncclDataType_t t = nccl_type(type);
  const std::size_t e = size_of(type);
  if (all_equal(counts)) {
    if (counts[0] > 0) {
      CANZONA_NCCL_CHECK(ncclAllGather(send, recv, counts[0], t, comm_, stream_.get()),
                         comm_.get());
    }
    return finish();
  }
  // AG-v: rank i broadcasts its part into slot i of every rank's output.
  group([&] {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] == 0) {
        continue;
      }
      const int root = static_cast<int>(i);
      std::byte* slot = at(recv, displs[i], e);
      const void* source = root == rank() ? send : slot;
      CANZONA_NCCL_CHECK(ncclBroadcast(source, slot, counts[i], t, root, comm_, stream_.get()),
                         comm_.get());
    }
  });
  return finish();
}

Request NcclCommunicator::do_all_to_all(const void* send, std::span<const std::size_t> send_counts,
                                        std::span<const std::size_t> send_displs, void* recv,
                                        std::span<const std::size_t> recv_counts,
                                        std::span<const std::size_t> recv_displs, DataType type) {
  check_usable("all_to_all");
  const cuda::DeviceGuard guard(device_);
  const ncclDataType_t t = nccl_type(type);
  const std::size_t e = size_of(type);
  const std::size_t self = static_cast<std::size_t>(rank());
  // Own part first, outside the group: stream operations inside a group may be reordered.
  copy_on_stream(at(recv, recv_displs[self], e), at(send, send_displs[self], e),
                 send_counts[self] * e);
  group([&] {
    for (std::size_t j = 0; j < send_counts.size(); ++j) {
      if (j == self) {
        continue;
      }
      const int peer = static_cast<int>(j);
      if (send_counts[j] > 0) {
        CANZONA_NCCL_CHECK(
            ncclSend(at(send, send_displs[j], e), send_counts[j], t, peer, comm_, stream_.get()),
            comm_.get());
      }
      if (recv_counts[j] > 0) {
        CANZONA_NCCL_CHECK(
            ncclRecv(at(recv, recv_displs[j], e), recv_counts[j], t, peer, comm_, stream_.get()),
            comm_.get());
      }
    }
  });
  return finish();
}

Request NcclCommunicator::do_broadcast(void* buf, std::size_t count, DataType type, int root) {
  check_usable("broadcast");
  const cuda::DeviceGuard guard(device_);
  if (count > 0) {
    CANZONA_NCCL_CHECK(ncclBroadcast(buf, buf, count, nccl_type(type), root, comm_, stream_.get()),
                       comm_.get());
  }
  return finish();
}

Request NcclCommunicator::do_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                    ReduceOp op, int root) {
  check_usable("reduce");
  const cuda::DeviceGuard guard(device_);
  if (count > 0) {
    // Off the root recv may be null; NCCL ignores recvbuff there, so pass the send address.
    void* target = rank() == root ? recv : const_cast<void*>(send);
    CANZONA_NCCL_CHECK(
        ncclReduce(send, target, count, nccl_type(type), nccl_op(op), root, comm_, stream_.get()),
        comm_.get());
  }
  return finish();
}

Request NcclCommunicator::do_gather(const void* send, std::size_t send_count, void* recv,
                                    std::span<const std::size_t> recv_counts,
                                    std::span<const std::size_t> displs, DataType type, int root) {
  check_usable("gather");
  const cuda::DeviceGuard guard(device_);
  const ncclDataType_t t = nccl_type(type);
  const std::size_t e = size_of(type);
  if (rank() == root) {
    const std::size_t self = static_cast<std::size_t>(root);
    copy_on_stream(at(recv, displs[self], e), send, recv_counts[self] * e);
  }
  group([&] {
    if (rank() == root) {
      for (std::size_t j = 0; j < recv_counts.size(); ++j) {
        if (static_cast<int>(j) != root && recv_counts[j] > 0) {
          CANZONA_NCCL_CHECK(ncclRecv(at(recv, displs[j], e), recv_counts[j], t,
                                      static_cast<int>(j), comm_, stream_.get()),
                             comm_.get());
        }
      }
    } else if (send_count > 0) {
      CANZONA_NCCL_CHECK(ncclSend(send, send_count, t, root, comm_, stream_.get()), comm_.get());
    }
  });
  return finish();
}

Request NcclCommunicator::do_scatter(const void* send, std::span<const std::size_t> send_counts,
                                     std::span<const std::size_t> displs, void* recv,
                                     std::size_t recv_count, DataType type, int root) {
  check_usable("scatter");
  const cuda::DeviceGuard guard(device_);
  const ncclDataType_t t = nccl_type(type);
  const std::size_t e = size_of(type);
  if (rank() == root) {
    const std::size_t self = static_cast<std::size_t>(root);
    copy_on_stream(recv, at(send, displs[self], e), send_counts[self] * e);
  }
  group([&] {
    if (rank() == root) {
      for (std::size_t j = 0; j < send_counts.size(); ++j) {
        if (static_cast<int>(j) != root && send_counts[j] > 0) {
          CANZONA_NCCL_CHECK(ncclSend(at(send, displs[j], e), send_counts[j], t,
                                      static_cast<int>(j), comm_, stream_.get()),
                             comm_.get());
        }
      }
    } else if (recv_count > 0) {
      CANZONA_NCCL_CHECK(ncclRecv(recv, recv_count, t, root, comm_, stream_.get()), comm_.get());
    }
  });
  return finish();
}

Request NcclCommunicator::do_barrier() {
  check_usable("barrier");
  const cuda::DeviceGuard guard(device_);
  // A rank's all-reduce cannot finish before every rank contributed: completing the request
  // means every rank has entered the barrier. The word's value is irrelevant.
  CANZONA_NCCL_CHECK(ncclAllReduce(barrier_word_.data(), barrier_word_.data(), 1, ncclFloat32,
                                   ncclSum, comm_, stream_.get()),
                     comm_.get());
  return finish();
}

}  // namespace canzona::comm
