// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// RAII over ncclComm_t and the ncclUniqueId used to bootstrap it.
#pragma once

#include "canzona/comm/nccl_features.hpp"

#include <nccl.h>

#include <cstddef>
#include <span>
#include <vector>

namespace canzona::comm {

/// The 128-byte NCCL bootstrap id; a plain value, serialisable as bytes for any transport.
class NcclUniqueId {
 public:
  NcclUniqueId() noexcept = default;
  /// ncclGetUniqueId: call on one rank, then send bytes() to the others. Throws NcclError.
  static NcclUniqueId create();

  std::span<std::byte, sizeof(ncclUniqueId)> bytes() noexcept {
    return std::span<std::byte, sizeof(ncclUniqueId)>(reinterpret_cast<std::byte*>(&id_),
                                                      sizeof(ncclUniqueId));
  }
  const ncclUniqueId& get() const noexcept { return id_; }

 private:
  ncclUniqueId id_{};
};

/// Owns a (blocking) NCCL communicator bound to one CUDA device. Move-only.
///
/// Teardown is explicit: finalize() is a collective step that flushes outstanding work and
/// destroys the communicator; call it on every rank (concurrently, from each rank's thread, when
/// one process drives several GPUs). If the object dies without finalize() (an exception, a
/// failed peer) the destructor falls back to ncclCommAbort, which is local and non-blocking, and
/// logs a warning; it never throws. abort() does the same on purpose (after an asynchronous
/// error). Never keep one in a static.
class NcclComm {
 public:
  NcclComm() noexcept = default;
  /// ncclCommInitRank on `device`: blocks until all `nranks` ranks joined. Throws NcclError.
  static NcclComm init_rank(const NcclUniqueId& id, int nranks, int rank, int device);
  /// ncclCommInitAll: one communicator per device of this process, rank i on devices[i].
  static std::vector<NcclComm> init_all(std::span<const int> devices);

  ~NcclComm();
  NcclComm(NcclComm&& other) noexcept;
  NcclComm& operator=(NcclComm&& other) noexcept;
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  /// ncclCommSplit: collective over this communicator, blocking. Ranks with the same color form
  /// a new communicator ordered by (key, rank); a negative color returns an empty NcclComm.
  NcclComm split(int color, int key) const;
  /// ncclCommFinalize + ncclCommDestroy. Collective; blocks until outstanding operations on this
  /// communicator completed. Leaves the object empty. Throws NcclError.
  void finalize();
  /// NCCL's asynchronous error state of the communicator (ncclCommGetAsyncError); ncclSuccess
  /// for an empty one. Never blocks. A failure of the query itself is returned as the result.
  ncclResult_t async_error() const noexcept;
  /// ncclCommAbort: local and non-blocking, it stops the communicator's outstanding operations
  /// (so memory they use can be freed and nothing waits on a dead peer) and leaves the object
  /// empty. `why` is logged unless null. Never throws.
  void abort(const char* why) noexcept;

  ncclComm_t get() const noexcept { return comm_; }
  operator ncclComm_t() const noexcept { return comm_; }  // NOLINT(google-explicit-constructor)
  explicit operator bool() const noexcept { return comm_ != nullptr; }
  int device() const noexcept { return device_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

 private:
  NcclComm(ncclComm_t comm, int device, int rank, int size) noexcept
      : comm_(comm), device_(device), rank_(rank), size_(size) {}

  ncclComm_t comm_ = nullptr;
  int device_ = -1;
  int rank_ = 0;
  int size_ = 0;
};

}  // namespace canzona::comm
