// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NCCL backend of Communicator: device buffers, one GPU per rank, every collective enqueued on
// the communicator's own stream with no host synchronisation.
#pragma once

#include "canzona/comm/communicator.hpp"
#include "canzona/comm/nccl_comm.hpp"

#include <canzona/config.hpp>
#include <canzona/cuda/buffer.hpp>
#include <canzona/cuda/event.hpp>
#include <canzona/cuda/stream.hpp>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace canzona::comm {

class MpiCommunicator;

/// Communicator over an NCCL communicator; buffers are device memory on device().
///
/// Streams and synchronisation: every collective is enqueued on stream(), a non-blocking stream
/// this object owns on device(), and returns as soon as NCCL has enqueued it (no host sync).
/// Input produced on another stream must be ordered first, e.g. with order_after(producer).
/// The returned Request holds a sync-only CUDA event recorded on stream() after the enqueue:
/// Request::wait() blocks the host on that event (then checks NCCL's asynchronous error state),
/// Request::test() queries it, and make_wait(request, other) makes another stream wait for it
/// without a host synchronisation. Requests must complete before the communicator is destroyed.
///
/// Algorithms: equal counts use ncclReduceScatter / ncclAllGather; uneven reduce_scatter is one
/// ncclReduce(root = i) of part i per rank and uneven all_gather one ncclBroadcast(root = i) per
/// rank, each set inside one ncclGroupStart/End so it launches as one operation (Canzona's RS-v /
/// AG-v). all_to_all, gather and scatter are grouped ncclSend/ncclRecv; this rank's own part is
/// a device-to-device copy on stream(). barrier is a one-element all-reduce. Zero-size parts
/// issue no NCCL call (consistent on all ranks, since counts are).
///
/// Threads: one thread drives one NcclCommunicator. In create_local() mode, collectives,
/// split() and finalize() must be called by the threads of all local ranks concurrently.
class NcclCommunicator final : public Communicator {
 public:
#if CANZONA_WITH_MPI
  /// Multi-process (and multi-node) creation, collective over `bootstrap`: rank 0 creates the
  /// ncclUniqueId, MPI broadcasts it, every rank calls ncclCommInitRank. `device` < 0 picks the
  /// rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED), which must be below the
  /// node's device count (ConfigError otherwise). Ranks follow bootstrap.rank().
  static std::unique_ptr<NcclCommunicator> create(MpiCommunicator& bootstrap,
                                                  std::string name = "world", int device = -1);
#endif
  /// One process driving several local GPUs (nccl-tests -g mode): ncclCommInitAll over
  /// `devices`, returning communicator i (rank i) on devices[i]. Hand each to its own thread.
  static std::vector<std::unique_ptr<NcclCommunicator>> create_local(std::span<const int> devices,
                                                                     std::string name = "world");

  /// Aborts the NCCL communicator (with a warning) unless finalize() was called.
  ~NcclCommunicator() override;

  MemorySpace memory_space() const noexcept override { return MemorySpace::kDevice; }
  std::string_view backend() const noexcept override { return "nccl"; }
  /// CUDA device of this rank.
  int device() const noexcept { return device_; }
  /// The stream all collectives are enqueued on.
  cuda::StreamView stream() const noexcept { return stream_.view(); }
  /// The owned NCCL communicator (for code that issues raw NCCL calls on stream()).
  const NcclComm& nccl() const noexcept { return comm_; }

  /// Makes stream() wait for the work enqueued on `producer` so far (event, no host sync).
  void order_after(cuda::StreamView producer);
  /// Makes `consumer` wait for `request` without a host sync. No-op for a complete request or
  /// one from another backend (those are complete by the time a host could use them).
  static void make_wait(const Request& request, cuda::StreamView consumer);

  /// Collective teardown: synchronises stream() and finalises the NCCL communicator. Afterwards
  /// no collective may be issued. Call on all ranks.
  void finalize();

 protected:
  std::unique_ptr<Communicator> do_split(int color, int key, std::string name) override;
  Request do_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                        ReduceOp op) override;
  Request do_reduce_scatter(const void* send, void* recv, std::span<const std::size_t> counts,
                            std::span<const std::size_t> displs, DataType type,
                            ReduceOp op) override;
  Request do_all_gather(const void* send, void* recv, std::span<const std::size_t> counts,
                        std::span<const std::size_t> displs, DataType type) override;
  Request do_all_to_all(const void* send, std::span<const std::size_t> send_counts,
                        std::span<const std::size_t> send_displs, void* recv,
                        std::span<const std::size_t> recv_counts,
                        std::span<const std::size_t> recv_displs, DataType type) override;
  Request do_broadcast(void* buf, std::size_t count, DataType type, int root) override;
  Request do_reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                    int root) override;
  Request do_gather(const void* send, std::size_t send_count, void* recv,
                    std::span<const std::size_t> recv_counts, std::span<const std::size_t> displs,
                    DataType type, int root) override;
  Request do_scatter(const void* send, std::span<const std::size_t> send_counts,
                     std::span<const std::size_t> displs, void* recv, std::size_t recv_count,
                     DataType type, int root) override;
  Request do_barrier() override;

 private:
  NcclCommunicator(NcclComm comm, std::string name);
  void check_usable(std::string_view call) const;
  /// Records the completion event on stream() and wraps it into a Request.
  Request finish();
  /// Runs `issue` between ncclGroupStart and ncclGroupEnd, ending the group even on a throw.
  template <typename Fn>
  void group(Fn&& issue);
  void copy_on_stream(void* dst, const void* src, std::size_t bytes);

  // Declaration order matters: the stream and buffers go before the communicator is aborted.
  NcclComm comm_;
  int device_;
  cuda::Stream stream_;
  cuda::Event producer_event_;
  cuda::DeviceBuffer<float> barrier_word_;
};

}  // namespace canzona::comm
