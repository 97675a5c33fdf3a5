// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// MPI backend of Communicator (host buffers, non-blocking MPI 3.1 collectives) and the RAII
// guard around MPI_Init_thread / MPI_Finalize. Also the bootstrap channel for NCCL.
#pragma once

#include "canzona/comm/communicator.hpp"

#include <mpi.h>

#include <memory>
#include <string>

namespace canzona::comm {

/// MPI thread support levels (MPI_THREAD_*), in increasing order.
enum class ThreadLevel { kSingle, kFunneled, kSerialized, kMultiple };

/// Initialises MPI for the lifetime of the object. If MPI is already initialised (e.g. by a test
/// main), it does nothing and never finalises: only the guard that initialised MPI finalises it.
/// Move-only; create exactly one per process, before any MpiCommunicator.
class MpiRuntime {
 public:
  /// MPI_Init_thread(argc, argv, required). Throws MpiError when MPI cannot provide `required`.
  explicit MpiRuntime(ThreadLevel required = ThreadLevel::kFunneled);
  MpiRuntime(int* argc, char*** argv, ThreadLevel required = ThreadLevel::kFunneled);
  ~MpiRuntime();
  MpiRuntime(MpiRuntime&& other) noexcept;
  MpiRuntime& operator=(MpiRuntime&&) = delete;
  MpiRuntime(const MpiRuntime&) = delete;
  MpiRuntime& operator=(const MpiRuntime&) = delete;

  /// True when this guard called MPI_Init_thread and will call MPI_Finalize.
  bool owns() const noexcept { return owns_; }
  /// The thread level MPI provides.
  ThreadLevel provided() const noexcept { return provided_; }
  /// MPI_Initialized && !MPI_Finalized.
  static bool active() noexcept;

 private:
  bool owns_ = false;
  ThreadLevel provided_ = ThreadLevel::kSingle;
};

/// Ranks of one node, from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED).
struct NodeRanks {
  int local_rank = 0;
  int local_size = 1;
};

/// Communicator over an MPI_Comm; buffers are host memory.
///
/// Every collective starts the matching non-blocking MPI call (MPI_Iallreduce,
/// MPI_Ireduce_scatter, MPI_Iallgatherv, MPI_Ialltoallv, MPI_Ibcast, MPI_Ireduce, MPI_Igatherv,
/// MPI_Iscatterv, MPI_Ibarrier); Request::wait is MPI_Wait and Request::test is MPI_Test (which
/// also drives MPI's progress, so poll test() while overlapping work). The count and
/// displacement arrays MPI needs until completion are owned by the request.
///
/// Limits: MPI counts and displacements are `int`, so any count or displacement above INT_MAX
/// elements throws ConfigError. bfloat16 and float16 are moved as 2-byte integers (all
/// collectives without a reduction work). MPI has no such arithmetic types: a bfloat16 sum is a
/// user operation (each pairwise combination adds in fp32 and rounds to nearest even, as one
/// hop of NCCL's bf16 ring does; the association is MPI's), every other reduction on them
/// throws ConfigError (reduce in float32 instead). In-place reduce_scatter is
/// staged through a request-owned buffer because MPI_IN_PLACE puts the result at the start of
/// the buffer instead of at the rank's offset.
///
/// Communicators created here (world(), split()) own a private MPI_Comm (duplicate or split),
/// set MPI_ERRORS_RETURN on it so failures surface as MpiError, and free it with MPI_Comm_free
/// on destruction, which must happen before MPI_Finalize. MPI_COMM_WORLD itself is never freed.
class MpiCommunicator final : public Communicator {
 public:
  /// A communicator over a duplicate of MPI_COMM_WORLD named "world": the duplicate isolates our
  /// traffic from any other user of MPI_COMM_WORLD. Collective over MPI_COMM_WORLD.
  static std::unique_ptr<MpiCommunicator> world();
  /// Wraps `comm` without owning it (never freed, error handler left alone).
  static std::unique_ptr<MpiCommunicator> borrow(MPI_Comm comm, std::string name);

  ~MpiCommunicator() override;

  MemorySpace memory_space() const noexcept override { return MemorySpace::kHost; }
  std::string_view backend() const noexcept override { return "mpi"; }
  /// The underlying communicator (for bootstrap code and tests).
  MPI_Comm native() const noexcept { return comm_; }
  /// This rank's position among the ranks of this group on the same node. Collective, blocking.
  NodeRanks node_ranks() const;

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
  MpiCommunicator(MPI_Comm comm, std::string name, bool owning);
  int to_int(std::string_view call, std::size_t value) const;
  MPI_Op reduction(std::string_view call, DataType type, ReduceOp op) const;

  MPI_Comm comm_;
  bool owning_;
};

}  // namespace canzona::comm
