// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// NCCL backend of Communicator: device buffers, one GPU per rank, every collective enqueued on
// the communicator's own stream with no host synchronisation.
#pragma once

#include "canzona/comm/communicator.hpp"
#include "canzona/comm/nccl_bootstrap.hpp"
#include "canzona/comm/nccl_comm.hpp"
#include "canzona/comm/nccl_schedule.hpp"
#include "canzona/comm/trace.hpp"

#include <canzona/config.hpp>
#include <canzona/cuda/buffer.hpp>
#include <canzona/cuda/event.hpp>
#include <canzona/cuda/stream.hpp>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::comm {

class NcclEventPool;

/// Communicator over an NCCL communicator; buffers are device memory on device().
///
/// Streams and synchronisation: every collective is enqueued on stream(), a non-blocking stream
/// this object owns on device(), and returns as soon as NCCL has enqueued it (no host sync).
/// Input produced on another stream must be ordered first, e.g. with order_after(producer).
/// The returned Request holds a sync-only CUDA event recorded on stream() after the enqueue;
/// make_wait(request, other) makes another stream wait for it without a host synchronisation.
/// Requests must complete before the communicator is destroyed.
///
/// What is issued: each collective's calls come from the pure schedules of nccl_schedule.hpp
/// (tested on the CPU against the MPI communicator); this class only walks them. Equal counts
/// use ncclReduceScatter / ncclAllGather; uneven reduce_scatter is one ncclReduce(root = i) per
/// nonzero part and uneven all_gather one ncclBroadcast(root = i), each set inside one
/// ncclGroupStart/End (Canzona's RS-v / AG-v); all_to_all, gather and scatter are grouped
/// ncclSend/ncclRecv with the rank's own part copied on stream(); barrier is a one-element
/// all-reduce.
///
/// Failures end instead of hanging: Request::test() is a complete non-blocking check (NCCL's
/// asynchronous error first, then the completion event) and Request::wait() polls the same
/// checks, so a waiting rank never sits in a CUDA call that a dead peer could block forever. On
/// an error (asynchronous, or from an enqueue) the NCCL communicator is aborted first
/// (ncclCommAbort stops its kernels), then the request's resources are released, then an
/// NcclError names the collective, the group and the rank; later calls fail at once with the
/// same cause. The destructor aborts before freeing its stream and buffers unless finalize()
/// ran.
///
/// Threads: one thread drives one NcclCommunicator. In create_local() mode, collectives,
/// split() and finalize() must be called by the threads of all local ranks concurrently.
class NcclCommunicator final : public Communicator {
 public:
  /// Multi-process (and multi-node) creation, collective over the group `bootstrap` describes:
  /// rank 0 creates the ncclUniqueId, the bootstrap broadcasts it, every rank calls
  /// ncclCommInitRank. `device` < 0 picks the rank's index among the group's ranks on its node,
  /// which must be below the node's device count (ConfigError otherwise). The chosen device
  /// becomes the calling thread's current device for good (cuda::use_device), so the cuda
  /// backend made afterwards with its default device lands on the same GPU. Ranks follow
  /// bootstrap.rank.
  static std::unique_ptr<NcclCommunicator> create(const NcclBootstrap& bootstrap,
                                                  std::string name = "world", int device = -1);
  /// One process driving several local GPUs (nccl-tests -g mode): ncclCommInitAll over
  /// `devices`, returning communicator i (rank i) on devices[i]. Hand each to its own thread.
  static std::vector<std::unique_ptr<NcclCommunicator>> create_local(std::span<const int> devices,
                                                                     std::string name = "world");

  /// Aborts the NCCL communicator (with a warning) unless finalize() was called, before the
  /// stream and buffers its kernels may still use are freed.
  ~NcclCommunicator() override;

  MemorySpace memory_space() const noexcept override { return MemorySpace::kDevice; }
  std::string_view backend() const noexcept override { return "nccl"; }
  /// CUDA device of this rank.
  int device() const noexcept override { return device_; }
  /// The stream all collectives are enqueued on.
  cuda::StreamView stream() const noexcept { return stream_.view(); }
  /// The owned NCCL communicator (for code that issues raw NCCL calls on stream()).
  const NcclComm& nccl() const noexcept { return comm_; }

  /// Makes stream() wait for the work enqueued on `producer` so far (event, no host sync).
  void order_after(cuda::StreamView producer);
  /// Makes `consumer` wait for `request` without a host sync. No-op for a complete request or
  /// one from another backend (those are complete by the time a host could use them).
  static void make_wait(const Request& request, cuda::StreamView consumer);

  /// Collective teardown: waits for stream() (polling NCCL's error state, so a failed peer
  /// ends it) and finalises the NCCL communicator. Afterwards no collective may be issued. Call
  /// on all ranks.
  void finalize() override;

  /// The non-blocking health check behind Request::test(): throws NcclError naming `op`, the
  /// group and the rank after aborting the communicator when NCCL reports an asynchronous error,
  /// and at once (with the first cause) once aborted.
  void check_health(CollectiveOp op);
  /// Aborts the communicator after a CUDA error seen while completing `op` and throws CudaError
  /// naming it (Request::test() on a failed event query).
  [[noreturn]] void fail_after_cuda_error(CollectiveOp op, const CudaError& error);

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
  void check_usable(CollectiveOp op) const;
  /// Issues `schedule` on stream(): the copies, then the calls (grouped when it says so), and
  /// returns the request of the completion event. Any failure aborts first and throws.
  Request run(CollectiveOp op, const NcclSchedule& schedule, const void* send, void* recv,
              DataType type, ReduceOp reduce);
  void issue(const NcclCall& call, void* in, void* out, DataType type, ReduceOp reduce);
  /// Aborts the NCCL communicator, remembers why, and throws NcclError (CudaError when `cuda`)
  /// naming `op`, the group and the rank, with `cause` and its `code`.
  [[noreturn]] void abort_and_throw(CollectiveOp op, std::string_view how, std::string_view cause,
                                    int code, bool cuda = false);
  /// The message NCCL gives for `result` on this communicator (read before an abort frees it).
  std::string describe(ncclResult_t result) const;
  /// Waits for stream() by polling its completion and NCCL's error state (never blocks in CUDA).
  void drain(CollectiveOp op);

  // The communicator is declared first but aborted explicitly in the destructor body, before
  // the stream and buffers below are freed (cudaFree of memory a stuck NCCL kernel uses would
  // block forever).
  NcclComm comm_;
  int device_;
  cuda::Stream stream_;
  cuda::Event producer_event_;
  /// Completion events of the requests, reused (nccl_communicator.cpp).
  std::shared_ptr<NcclEventPool> events_;
  cuda::DeviceBuffer<float> barrier_word_;
  /// Set once the communicator was aborted after a failure: every later use throws it.
  std::string failure_;
  int failure_code_ = 0;
};

}  // namespace canzona::comm
