// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NCCL backend: each collective walks its schedule (nccl_schedule.hpp) on the communicator's
// stream; completion and failures are observed without ever blocking in CUDA, and a failure
// aborts the NCCL communicator before anything is freed or thrown.
#include "canzona/comm/nccl_communicator.hpp"

#include "canzona/comm/nccl_check.hpp"

#include <canzona/core/error.hpp>
#include <canzona/cuda/check.hpp>
#include <canzona/cuda/device_guard.hpp>
#include <canzona/cuda/devices.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace canzona::comm {
namespace {

/// Sleeps between polls: a few yields first (a collective that is almost done), then short
/// sleeps, so a waiting rank costs little CPU and still notices completion within ~50 µs.
class Backoff {
 public:
  void pause() {
    if (++polls_ < 64) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

 private:
  int polls_ = 0;
};

}  // namespace

/// The completion events of a communicator's requests, created once and reused: a released
/// request gives its event back, so a step records events without creating any. Shared with the
/// requests, so one that outlives its communicator still has somewhere to give its event back.
/// Re-recording an event a stream already waits on is safe: cudaStreamWaitEvent captured the
/// record at the time of the call.
class NcclEventPool {
 public:
  explicit NcclEventPool(int device) : device_(device) {}

  cuda::Event take() {
    if (spare_.empty()) {
      const cuda::DeviceGuard guard(device_);
      return cuda::Event::sync();
    }
    cuda::Event event = std::move(spare_.back());
    spare_.pop_back();
    return event;
  }

  void give_back(cuda::Event event) noexcept {
    try {
      spare_.push_back(std::move(event));
    } catch (...) {  // no room to keep it: destroying it is correct, only slower next time
    }
  }

 private:
  int device_;
  std::vector<cuda::Event> spare_;
};

namespace {

// Completion = a sync-only event recorded after the enqueue. test() is the complete check:
// NCCL's asynchronous error first (a dead peer leaves the event pending forever), then the
// event. wait() polls test(), so it never blocks inside cudaEventSynchronize.
class NcclRequestState final : public RequestState {
 public:
  NcclRequestState(cuda::Event event, std::shared_ptr<NcclEventPool> pool, NcclCommunicator& owner,
                   CollectiveOp op)
      : event_(std::move(event)), pool_(std::move(pool)), owner_(owner), op_(op) {}
  ~NcclRequestState() override {
    if (event_) pool_->give_back(std::move(*event_));
  }
  NcclRequestState(const NcclRequestState&) = delete;
  NcclRequestState& operator=(const NcclRequestState&) = delete;

  bool test() override {
    // Once failed, the communicator repeats its first error (check_health throws it).
    owner_.check_health(op_);
    if (!event_) return true;
    try {
      return event_->query();
    } catch (const CudaError& e) {
      // Abort first (inside), then release the event, then throw.
      event_.reset();
      owner_.fail_after_cuda_error(op_, e);
    }
  }

  void wait() override {
    Backoff backoff;
    while (!test()) backoff.pause();
  }

  const cuda::Event* event() const noexcept { return event_ ? &*event_ : nullptr; }

 private:
  std::optional<cuda::Event> event_;
  std::shared_ptr<NcclEventPool> pool_;
  NcclCommunicator& owner_;
  CollectiveOp op_;
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
      events_(std::make_shared<NcclEventPool>(device_)),
      // The barrier all-reduces this word: zeroed on the communicator's stream before any
      // collective, so the sum never reads memory nothing wrote.
      barrier_word_(on_device<cuda::DeviceBuffer<float>>(device_, [this] {
        cuda::DeviceBuffer<float> word(1);
        word.zero(stream_);
        return word;
      })) {}

std::unique_ptr<NcclCommunicator> NcclCommunicator::create(const NcclBootstrap& bootstrap,
                                                           std::string name, int device) {
  if (device < 0) {
    const int devices = cuda::device_count();
    if (bootstrap.local_size > devices) {
      throw ConfigError(fmt::format(
          "NcclCommunicator::create: {} ranks share this node but it has {} CUDA device(s); NCCL "
          "needs one GPU per rank: launch at most {} ranks per node",
          bootstrap.local_size, devices, devices));
    }
    device = bootstrap.local_rank;
  }
  // The rank's device, current from now on: the communicator, the backend made with its
  // default device, and every later context of this thread live on it (not on GPU 0).
  cuda::use_device(device);
  NcclUniqueId id;
  if (bootstrap.rank == 0) {
    id = NcclUniqueId::create();
  }
  bootstrap.broadcast_from_rank0(id.bytes());
  NcclComm comm = NcclComm::init_rank(id, bootstrap.size, bootstrap.rank, device);
  return std::unique_ptr<NcclCommunicator>(new NcclCommunicator(std::move(comm), std::move(name)));
}

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

NcclCommunicator::~NcclCommunicator() {
  // Abort first: a kernel still waiting for a dead peer would make the cudaFree and
  // cudaStreamDestroy of the members below block forever.
  if (comm_) comm_.abort("destroyed without finalize()");
}

void NcclCommunicator::finalize() {
  if (!comm_) {
    return;
  }
  const cuda::DeviceGuard guard(device_);
  drain(CollectiveOp::kBarrier);
  comm_.finalize();
}

void NcclCommunicator::drain(CollectiveOp op) {
  Backoff backoff;
  for (;;) {
    check_health(op);
    const cudaError_t status = cudaStreamQuery(stream_.get());
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) {
      (void)cudaGetLastError();
      abort_and_throw(op, "failed on its stream", cudaGetErrorString(status),
                      static_cast<int>(status), /*cuda=*/true);
    }
    (void)cudaGetLastError();  // cudaErrorNotReady is reported through the error channel
    backoff.pause();
  }
}

void NcclCommunicator::check_usable(CollectiveOp op) const {
  if (!failure_.empty()) throw NcclError(failure_, failure_code_);
  if (!comm_) fail(to_string(op), "the communicator was finalized");
}

void NcclCommunicator::check_health(CollectiveOp op) {
  if (!failure_.empty()) throw NcclError(failure_, failure_code_);
  const ncclResult_t result = comm_.async_error();
  if (result == ncclSuccess || result == ncclInProgress) return;
  abort_and_throw(op, "failed asynchronously", describe(result), static_cast<int>(result));
}

void NcclCommunicator::fail_after_cuda_error(CollectiveOp op, const CudaError& error) {
  abort_and_throw(op, "failed on its stream", error.what(), error.code(), /*cuda=*/true);
}

std::string NcclCommunicator::describe(ncclResult_t result) const {
  const char* last = ncclGetLastError(comm_.get());
  return fmt::format("{} ({}): {} [last NCCL error: {}] (NCCL {})",
                     detail::nccl_result_name(result), static_cast<int>(result),
                     ncclGetErrorString(result), (last != nullptr && *last != '\0') ? last : "none",
                     detail::nccl_runtime_version());
}

void NcclCommunicator::abort_and_throw(CollectiveOp op, std::string_view how,
                                       std::string_view cause, int code, bool cuda) {
  failure_ = fmt::format(
      "NCCL {} on communicator '{}' (rank {} of {}, device {}) {}: {}; the communicator was "
      "aborted so that no rank waits on it (a failed or killed peer process, or a network "
      "error, is the usual cause)",
      to_string(op), name(), rank(), size(), device_, how, cause);
  failure_code_ = code;
  comm_.abort(nullptr);
  if (cuda) throw CudaError(failure_, failure_code_);
  throw NcclError(failure_, failure_code_);
}

void NcclCommunicator::order_after(cuda::StreamView producer) {
  const cuda::DeviceGuard guard(device_);
  producer_event_.record(producer);
  producer_event_.make_wait(stream_);
}

void NcclCommunicator::make_wait(const Request& request, cuda::StreamView consumer) {
  if (const auto* state = dynamic_cast<const NcclRequestState*>(request.state())) {
    if (const cuda::Event* event = state->event()) event->make_wait(consumer);
  }
}

std::unique_ptr<Communicator> NcclCommunicator::do_split(int color, int key, std::string name) {
  check_usable(CollectiveOp::kBarrier);
  NcclComm child = comm_.split(color, key);
  if (!child) {
    return nullptr;
  }
  return std::unique_ptr<Communicator>(new NcclCommunicator(std::move(child), std::move(name)));
}

// ---------------------------------------------------------------------------------------------
// Collectives: the schedule of each, walked on stream_.

void NcclCommunicator::issue(const NcclCall& call, void* in, void* out, DataType type,
                             ReduceOp reduce) {
  const ncclDataType_t t = nccl_type(type);
  const ncclRedOp_t o = nccl_op(reduce);
  cudaStream_t s = stream_.get();
  switch (call.kind) {
    case NcclCallKind::kAllReduce:
      CANZONA_NCCL_CHECK(ncclAllReduce(in, out, call.count, t, o, comm_, s), comm_.get());
      return;
    case NcclCallKind::kReduceScatter:
      CANZONA_NCCL_CHECK(ncclReduceScatter(in, out, call.count, t, o, comm_, s), comm_.get());
      return;
    case NcclCallKind::kAllGather:
      CANZONA_NCCL_CHECK(ncclAllGather(in, out, call.count, t, comm_, s), comm_.get());
      return;
    case NcclCallKind::kReduce:
      CANZONA_NCCL_CHECK(ncclReduce(in, out, call.count, t, o, call.peer, comm_, s), comm_.get());
      return;
    case NcclCallKind::kBroadcast:
      CANZONA_NCCL_CHECK(ncclBroadcast(in, out, call.count, t, call.peer, comm_, s), comm_.get());
      return;
    case NcclCallKind::kSend:
      CANZONA_NCCL_CHECK(ncclSend(in, call.count, t, call.peer, comm_, s), comm_.get());
      return;
    case NcclCallKind::kRecv:
      CANZONA_NCCL_CHECK(ncclRecv(out, call.count, t, call.peer, comm_, s), comm_.get());
      return;
    case NcclCallKind::kCopy:
      break;
  }
  throw Error(fmt::format("NCCL schedule: {} is not an NCCL call", to_string(call.kind)));
}

Request NcclCommunicator::run(CollectiveOp op, const NcclSchedule& schedule, const void* send,
                              void* recv, DataType type, ReduceOp reduce) {
  check_usable(op);
  const cuda::DeviceGuard guard(device_);
  const std::size_t e = size_of(type);
  auto address = [&](NcclRef ref) -> void* {
    switch (ref.buffer) {
      case NcclBuffer::kSend:
        return static_cast<std::byte*>(const_cast<void*>(send)) + ref.offset * e;
      case NcclBuffer::kRecv:
        return static_cast<std::byte*>(recv) + ref.offset * e;
      case NcclBuffer::kScratch:
        return barrier_word_.data();
    }
    return nullptr;
  };
  bool group_open = false;
  try {
    for (const NcclCall& c : schedule.copies) {
      void* dst = address(c.out);
      const void* src = address(c.in);
      if (dst != src) {
        CANZONA_CUDA_CHECK(
            cudaMemcpyAsync(dst, src, c.count * e, cudaMemcpyDeviceToDevice, stream_.get()));
      }
    }
    if (schedule.grouped) {
      CANZONA_NCCL_CHECK(ncclGroupStart(), comm_.get());
      group_open = true;
    }
    for (const NcclCall& c : schedule.calls) issue(c, address(c.in), address(c.out), type, reduce);
    if (group_open) {
      group_open = false;
      // Returns once everything is enqueued on stream_, not when it has completed.
      CANZONA_NCCL_CHECK(ncclGroupEnd(), comm_.get());
    }
    cuda::Event event = events_->take();
    event.record(stream_);
    return Request(std::make_unique<NcclRequestState>(std::move(event), events_, *this, op));
  } catch (const RuntimeCallError& error) {
    // Keep NCCL's thread-local group depth balanced, then abort: this rank's peers may already
    // be inside the matching collective and must not wait on it.
    if (group_open) CANZONA_NCCL_WARN(ncclGroupEnd(), nullptr);
    abort_and_throw(op, "failed to enqueue", error.what(), error.code(),
                    dynamic_cast<const CudaError*>(&error) != nullptr);
  }
}

Request NcclCommunicator::do_all_reduce(const void* send, void* recv, std::size_t count,
                                        DataType type, ReduceOp op) {
  return run(CollectiveOp::kAllReduce, nccl_all_reduce(count), send, recv, type, op);
}

Request NcclCommunicator::do_reduce_scatter(const void* send, void* recv,
                                            std::span<const std::size_t> counts,
                                            std::span<const std::size_t> displs, DataType type,
                                            ReduceOp op) {
  return run(CollectiveOp::kReduceScatter, nccl_reduce_scatter(rank(), counts, displs), send, recv,
             type, op);
}

Request NcclCommunicator::do_all_gather(const void* send, void* recv,
                                        std::span<const std::size_t> counts,
                                        std::span<const std::size_t> displs, DataType type) {
  return run(CollectiveOp::kAllGather, nccl_all_gather(rank(), counts, displs), send, recv, type,
             ReduceOp::kSum);
}

Request NcclCommunicator::do_all_to_all(const void* send, std::span<const std::size_t> send_counts,
                                        std::span<const std::size_t> send_displs, void* recv,
                                        std::span<const std::size_t> recv_counts,
                                        std::span<const std::size_t> recv_displs, DataType type) {
  return run(CollectiveOp::kAllToAll,
             nccl_all_to_all(rank(), send_counts, send_displs, recv_counts, recv_displs), send,
             recv, type, ReduceOp::kSum);
}

Request NcclCommunicator::do_broadcast(void* buf, std::size_t count, DataType type, int root) {
  return run(CollectiveOp::kBroadcast, nccl_broadcast(count, root), buf, buf, type, ReduceOp::kSum);
}

Request NcclCommunicator::do_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                    ReduceOp op, int root) {
  return run(CollectiveOp::kReduce, nccl_reduce(rank(), count, root), send, recv, type, op);
}

Request NcclCommunicator::do_gather(const void* send, std::size_t send_count, void* recv,
                                    std::span<const std::size_t> recv_counts,
                                    std::span<const std::size_t> displs, DataType type, int root) {
  return run(CollectiveOp::kGather, nccl_gather(rank(), send_count, recv_counts, displs, root),
             send, recv, type, ReduceOp::kSum);
}

Request NcclCommunicator::do_scatter(const void* send, std::span<const std::size_t> send_counts,
                                     std::span<const std::size_t> displs, void* recv,
                                     std::size_t recv_count, DataType type, int root) {
  return run(CollectiveOp::kScatter, nccl_scatter(rank(), send_counts, displs, recv_count, root),
             send, recv, type, ReduceOp::kSum);
}

Request NcclCommunicator::do_barrier() {
  // A rank's all-reduce cannot finish before every rank contributed: completing the request
  // means every rank has entered the barrier. The word's value is irrelevant.
  return run(CollectiveOp::kBarrier, nccl_barrier(), nullptr, nullptr, DataType::kFloat32,
             ReduceOp::kSum);
}

}  // namespace canzona::comm
