// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The per-communicator record of every collective issued, with the bytes each rank moved, so
// executors can be checked against what a plan promised.
#pragma once

#include "canzona/comm/types.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::comm {

/// The collectives a Communicator offers.
enum class CollectiveOp {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kReduce,
  kGather,
  kScatter,
  kBarrier,
};

/// "all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast", "reduce", "gather",
/// "scatter", "barrier".
std::string_view to_string(CollectiveOp op);

/// One collective call as seen by one rank.
///
/// `count` is the collective's size in elements as nccl-tests counts it (its S / typesize):
/// all_reduce, broadcast, reduce: count; reduce_scatter, all_gather: Σcounts (the whole array);
/// all_to_all: Σsend_counts of this rank; gather: Σrecv_counts; scatter: Σsend_counts;
/// barrier: 0.
///
/// `bytes_sent` / `bytes_received` are the **direct-exchange volume** of this rank: the bytes it
/// would put on / take off the wire if it exchanged its share with every peer directly, with
/// reductions done at the destination and nothing sent to itself. The definition depends only on
/// the arguments (never on the backend or the algorithm NCCL/MPI picks), so both backends record
/// identical entries, summing bytes_sent over the ranks of a group equals summing
/// bytes_received, and a single-rank group moves 0 bytes. With n ranks, rank r, element size e:
///
/// | op             | bytes_sent                          | bytes_received                      |
/// |----------------|-------------------------------------|-------------------------------------|
/// | all_reduce     | e·(count − c_r + (n−1)·c_r)          | same as sent                        |
/// | reduce_scatter | e·(Σcounts − counts[r])             | e·(n−1)·counts[r]                   |
/// | all_gather     | e·(n−1)·counts[r]                   | e·(Σcounts − counts[r])             |
/// | all_to_all     | e·Σ_{j≠r} send_counts[j]            | e·Σ_{j≠r} recv_counts[j]            |
/// | broadcast      | root: e·(n−1)·count, else 0         | root: 0, else e·count               |
/// | reduce         | root: 0, else e·count               | root: e·(n−1)·count, else 0         |
/// | gather         | root: 0, else e·send_count          | root: e·Σ_{j≠root} recv_counts[j]   |
/// | scatter        | root: e·Σ_{j≠root} send_counts[j]   | root: 0, else e·recv_count          |
/// | barrier        | 0                                   | 0                                   |
///
/// all_reduce is counted as reduce-scatter + all-gather over the even split of `count` into n
/// chunks c_0..c_{n−1} (the first count mod n chunks one element larger). In the even case these
/// equal nccl-tests' bus bytes (S × busbw factor): 2(n−1)/n·S for all_reduce and (n−1)/n·S for
/// reduce_scatter, all_gather and all_to_all.
struct TraceEntry {
  CollectiveOp op = CollectiveOp::kBarrier;
  std::string group;   ///< Communicator name ("world", "dp", "tp", ...).
  int group_size = 0;  ///< Ranks in the communicator.
  int rank = 0;        ///< This rank within the communicator.
  DataType type = DataType::kFloat32;
  std::size_t count = 0;  ///< Elements of the collective (see above).
  int root = -1;          ///< Root of rooted collectives, -1 otherwise.
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;

  std::string_view op_name() const { return to_string(op); }
  friend bool operator==(const TraceEntry&, const TraceEntry&) = default;
};

/// Every collective issued on one communicator, in issue order.
using Trace = std::vector<TraceEntry>;

/// Sum of bytes_sent over the entries.
std::uint64_t total_bytes_sent(const Trace& trace);
/// Sum of bytes_received over the entries.
std::uint64_t total_bytes_received(const Trace& trace);

/// A fixed-width table, one line per entry plus a header and a totals line:
/// `#  op  group  ranks  rank  type  count  root  sent_B  recv_B`. For logs and the CLI.
std::string format_trace(const Trace& trace);

}  // namespace canzona::comm
