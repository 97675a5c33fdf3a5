// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Communicator: the group abstraction every executor talks to. Shared argument validation and
// trace bookkeeping live here; backends (MPI on host memory, NCCL on device memory) implement
// the protected do_* hooks. Host-clean: no CUDA, NCCL or MPI types.
#pragma once

#include "canzona/comm/request.hpp"
#include "canzona/comm/trace.hpp"
#include "canzona/comm/types.hpp"
#include "canzona/comm/volume.hpp"

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace canzona::comm {

/// A group of ranks and the collectives the plans use.
///
/// Conventions shared by every collective:
/// - **Collective calls**: every rank of the group calls the same collectives in the same order
///   with consistent arguments (the per-rank `counts` arrays must be identical on all ranks).
/// - **Asynchronous**: each call starts the operation and returns a Request; buffers belong to
///   the caller and must stay valid and untouched until the request completes. Requests may be
///   completed in any order.
/// - **Memory**: buffers live in memory_space() (host for MPI, the communicator's device for
///   NCCL). Counts and displacements are in elements of `type`; offsets derive from them.
/// - **Uneven**: reduce_scatter / all_gather / gather / scatter take one count per rank (zero
///   allowed); rank j's part sits at element offset counts[0] + ... + counts[j−1] (rank-major).
/// - **In place**: all_reduce when send == recv; reduce when send == recv on the root;
///   reduce_scatter when recv == send + offset(rank); all_gather when send == recv + offset(rank);
///   gather when send == recv + offset(root) on the root; scatter when recv == send +
///   offset(root) on the root. Any other overlap of send and receive memory is undefined.
/// - **Validation**: bad arguments (wrong number of counts, root out of range, a null buffer with
///   a nonzero count, a count the backend cannot express) throw canzona::ConfigError before
///   anything is communicated, naming the group, rank and call.
/// - **Trace**: every started call appends one TraceEntry (see trace.hpp for the byte
///   definitions); a call that throws appends nothing.
/// - **Threads**: a communicator is used by one thread at a time.
class Communicator {
 public:
  virtual ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  Communicator(Communicator&&) = delete;
  Communicator& operator=(Communicator&&) = delete;

  /// This process's rank in the group, 0 <= rank() < size().
  int rank() const noexcept { return rank_; }
  /// Number of ranks in the group.
  int size() const noexcept { return size_; }
  /// Group label used in traces and messages ("world", "dp", "tp", ...).
  const std::string& name() const noexcept { return name_; }
  /// Where this communicator's buffers must live.
  virtual MemorySpace memory_space() const noexcept = 0;
  /// Backend name: "mpi" or "nccl".
  virtual std::string_view backend() const noexcept = 0;
  /// The CUDA device whose memory the buffers live in; -1 for host memory (MPI).
  virtual int device() const noexcept { return -1; }
  /// Collective teardown, for backends that need one (NCCL: finish the stream and finalise the
  /// NCCL communicator; destroying it without this aborts it). Afterwards no collective may be
  /// issued. Call on all ranks. Nothing to do for MPI.
  virtual void finalize() {}

  /// Collective over this group: ranks passing the same `color` form a new group named `name`,
  /// ordered by (`key`, old rank). A negative color joins no group and returns nullptr.
  /// Blocking; not traced.
  std::unique_ptr<Communicator> split(int color, int key, std::string name);

  /// Element-wise reduction of `count` elements over all ranks; every rank receives the result.
  Request all_reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op);

  /// Uneven reduce-scatter: `send` holds Σcounts elements (rank-major); rank r receives the
  /// reduction of part r (counts[r] elements) in `recv`.
  Request reduce_scatter(const void* send, void* recv, std::span<const std::size_t> counts,
                         DataType type, ReduceOp op);

  /// Uneven all-gather: rank r contributes counts[r] elements from `send`; every rank receives
  /// all parts concatenated rank-major in `recv` (Σcounts elements).
  Request all_gather(const void* send, void* recv, std::span<const std::size_t> counts,
                     DataType type);

  /// All-to-all-v: this rank sends send_counts[j] elements starting at send + send_displs[j] to
  /// rank j, and receives recv_counts[j] elements from rank j at recv + recv_displs[j].
  /// send_counts[j] on rank r must equal recv_counts[r] on rank j.
  Request all_to_all(const void* send, std::span<const std::size_t> send_counts,
                     std::span<const std::size_t> send_displs, void* recv,
                     std::span<const std::size_t> recv_counts,
                     std::span<const std::size_t> recv_displs, DataType type);

  /// Copies `count` elements of `buf` on `root` to `buf` on every other rank.
  Request broadcast(void* buf, std::size_t count, DataType type, int root);

  /// Reduces `count` elements of every rank's `send` into `recv` on `root` (`recv` is ignored and
  /// may be null elsewhere).
  Request reduce(const void* send, void* recv, std::size_t count, DataType type, ReduceOp op,
                 int root);

  /// Uneven gather: rank j sends send_count (== recv_counts[j]) elements; `root` receives them
  /// rank-major in `recv`. recv_counts is required on every rank (it is checked and traced);
  /// `recv` is ignored off the root.
  Request gather(const void* send, std::size_t send_count, void* recv,
                 std::span<const std::size_t> recv_counts, DataType type, int root);

  /// Uneven scatter: `root` sends part j (send_counts[j] elements, rank-major in `send`) to rank
  /// j, which receives recv_count (== send_counts[j]) elements. send_counts is required on every
  /// rank; `send` is ignored off the root.
  Request scatter(const void* send, std::span<const std::size_t> send_counts, void* recv,
                  std::size_t recv_count, DataType type, int root);

  /// Completes on a rank only after every rank of the group has entered the barrier.
  Request barrier();

  /// Every collective issued on this communicator since construction or clear_trace().
  const Trace& trace() const noexcept { return trace_; }
  void clear_trace() noexcept { trace_.clear(); }

 protected:
  /// Backends pass their rank, size and the group name.
  Communicator(int rank, int size, std::string name);

  // Hooks: called after validation with arguments known to be consistent; `displs` are the
  // rank-major element offsets derived from `counts`. They start the operation and return its
  // request. Trace entries are recorded by the caller once the hook returned.
  virtual std::unique_ptr<Communicator> do_split(int color, int key, std::string name) = 0;
  virtual Request do_all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                ReduceOp op) = 0;
  virtual Request do_reduce_scatter(const void* send, void* recv,
                                    std::span<const std::size_t> counts,
                                    std::span<const std::size_t> displs, DataType type,
                                    ReduceOp op) = 0;
  virtual Request do_all_gather(const void* send, void* recv, std::span<const std::size_t> counts,
                                std::span<const std::size_t> displs, DataType type) = 0;
  virtual Request do_all_to_all(const void* send, std::span<const std::size_t> send_counts,
                                std::span<const std::size_t> send_displs, void* recv,
                                std::span<const std::size_t> recv_counts,
                                std::span<const std::size_t> recv_displs, DataType type) = 0;
  virtual Request do_broadcast(void* buf, std::size_t count, DataType type, int root) = 0;
  virtual Request do_reduce(const void* send, void* recv, std::size_t count, DataType type,
                            ReduceOp op, int root) = 0;
  virtual Request do_gather(const void* send, std::size_t send_count, void* recv,
                            std::span<const std::size_t> recv_counts,
                            std::span<const std::size_t> displs, DataType type, int root) = 0;
  virtual Request do_scatter(const void* send, std::span<const std::size_t> send_counts,
                             std::span<const std::size_t> displs, void* recv,
                             std::size_t recv_count, DataType type, int root) = 0;
  virtual Request do_barrier() = 0;

  /// Throws ConfigError "<backend> communicator '<name>' (rank r of n): <call>: <message>".
  [[noreturn]] void fail(std::string_view call, const std::string& message) const;

 private:
  void record(CollectiveOp op, DataType type, int root, const Volume& volume);
  /// Names the request's collective, group and rank for timeout and failure messages.
  void label(Request& request, CollectiveOp op) const;
  void check_root(std::string_view call, int root) const;
  void check_counts(std::string_view call, std::string_view what,
                    std::span<const std::size_t> counts) const;

  int rank_;
  int size_;
  std::string name_;
  Trace trace_;
};

}  // namespace canzona::comm
