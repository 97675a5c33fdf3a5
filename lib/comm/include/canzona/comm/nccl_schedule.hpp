// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What the NCCL communicator issues for each collective, as data: a pure function of the rank,
// the group size and the collective's arguments. NcclCommunicator only walks this list (one
// NCCL call per entry), so the logic of the multi-rank paths (grouped uneven reduce-scatter and
// all-gather, all-to-all, rooted gather/scatter), which no single GPU can execute, is tested on
// the CPU: the test replays every rank's schedule with NCCL's documented semantics and compares
// the buffers with what the MPI communicator computes. Host-clean: no NCCL, CUDA or MPI types,
// compiled in every build.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace canzona::comm {

/// The NCCL entry points (and the one stream copy) a schedule uses.
enum class NcclCallKind {
  kAllReduce,      ///< ncclAllReduce(in, out, count)
  kReduceScatter,  ///< ncclReduceScatter(in, out, recvcount = count): in holds size·count
  kAllGather,      ///< ncclAllGather(in, out, sendcount = count): out holds size·count
  kReduce,         ///< ncclReduce(in, out, count, root = peer); out is written on the root only
  kBroadcast,      ///< ncclBroadcast(in, out, count, root = peer); in is read on the root only
  kSend,           ///< ncclSend(in, count, peer)
  kRecv,           ///< ncclRecv(out, count, peer)
  kCopy,           ///< cudaMemcpyAsync(out ← in, count elements) on the communicator's stream
};

std::string_view to_string(NcclCallKind kind);

/// Which of the collective's buffers an address points into.
enum class NcclBuffer {
  kSend,     ///< the caller's send buffer
  kRecv,     ///< the caller's receive buffer
  kScratch,  ///< the communicator's own one-element word (barrier)
};

/// An address: `offset` elements into `buffer`.
struct NcclRef {
  NcclBuffer buffer = NcclBuffer::kSend;
  std::size_t offset = 0;
  friend bool operator==(const NcclRef&, const NcclRef&) = default;
};

/// One call of a rank.
struct NcclCall {
  NcclCallKind kind = NcclCallKind::kCopy;
  NcclRef in;   ///< sendbuff (unused by kRecv)
  NcclRef out;  ///< recvbuff (unused by kSend)
  std::size_t count = 0;
  int peer = -1;  ///< root (kReduce, kBroadcast) or peer (kSend, kRecv); -1 otherwise
  friend bool operator==(const NcclCall&, const NcclCall&) = default;
};

/// What one rank issues for one collective, in order: `copies` first, on the stream and outside
/// any group (stream operations inside an NCCL group may be reordered), then `calls`, inside one
/// ncclGroupStart/End when `grouped` (so NCCL launches them as one operation), plain otherwise.
/// Zero-size parts issue nothing; since counts agree on every rank, so do the matching calls.
struct NcclSchedule {
  std::vector<NcclCall> copies;
  std::vector<NcclCall> calls;
  bool grouped = false;
};

// Arguments as Communicator's do_* hooks receive them: `displs` are the rank-major element
// offsets of `counts`, `rank` is this rank, the group size is counts.size().

NcclSchedule nccl_all_reduce(std::size_t count);
/// Equal counts: one ncclReduceScatter. Uneven (Canzona's RS-v): one ncclReduce of part i onto
/// root i per nonzero part, grouped; off the root NCCL never writes recvbuff, so it gets the
/// part's own address.
NcclSchedule nccl_reduce_scatter(int rank, std::span<const std::size_t> counts,
                                 std::span<const std::size_t> displs);
/// Equal counts: one ncclAllGather. Uneven (AG-v): one ncclBroadcast from root i into slot i per
/// nonzero part, grouped; off the root the source is the slot itself (ignored by NCCL).
NcclSchedule nccl_all_gather(int rank, std::span<const std::size_t> counts,
                             std::span<const std::size_t> displs);
/// Own part as a copy, then a grouped send and receive per peer with a nonzero count.
NcclSchedule nccl_all_to_all(int rank, std::span<const std::size_t> send_counts,
                             std::span<const std::size_t> send_displs,
                             std::span<const std::size_t> recv_counts,
                             std::span<const std::size_t> recv_displs);
/// In place on the receive buffer (Communicator::broadcast has one buffer, passed as recv).
NcclSchedule nccl_broadcast(std::size_t count, int root);
/// Off the root NCCL ignores recvbuff; it gets the send address so no pointer check trips.
NcclSchedule nccl_reduce(int rank, std::size_t count, int root);
/// The root copies its own part and receives the others; every other rank sends once.
NcclSchedule nccl_gather(int rank, std::size_t send_count, std::span<const std::size_t> recv_counts,
                         std::span<const std::size_t> displs, int root);
/// The root copies its own part and sends the others; every other rank receives once.
NcclSchedule nccl_scatter(int rank, std::span<const std::size_t> send_counts,
                          std::span<const std::size_t> displs, std::size_t recv_count, int root);
/// A one-element all-reduce of the scratch word: no rank completes before every rank entered.
NcclSchedule nccl_barrier();

}  // namespace canzona::comm
