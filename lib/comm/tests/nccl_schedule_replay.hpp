// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Replays the NCCL schedules of every rank of a group in one process, with the semantics the
// NCCL documentation gives each call: collectives are matched across ranks by their position in
// the schedules (NCCL requires every rank to issue the same collectives in the same order, with
// the same count and root) and send/recv pairs by (source, destination, order) with equal counts.
// A schedule that NCCL would hang on (a collective or a receive without its partner) or that
// addresses memory outside a buffer fails the test instead. Sums of small integers, so the
// results are exact whatever the reduction order.
#pragma once

#include <canzona/comm/nccl_schedule.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace canzona::comm::test {

/// One rank's buffers. When `send_in_recv` is set the send buffer is the receive buffer from
/// element `send_offset` on (the in-place forms of Communicator), otherwise `send`.
struct RankBuffers {
  std::vector<std::int64_t> send;
  std::vector<std::int64_t> recv;
  std::vector<std::int64_t> scratch{0};
  bool send_in_recv = false;
  std::size_t send_offset = 0;
};

/// Address of `count` elements at `ref` on `rank`, or nullptr (with a test failure) when they do
/// not lie inside the buffer.
inline std::int64_t* resolve(RankBuffers& b, NcclRef ref, std::size_t count, int rank,
                             const char* what) {
  std::vector<std::int64_t>* base = nullptr;
  std::size_t offset = ref.offset;
  switch (ref.buffer) {
    case NcclBuffer::kSend:
      base = b.send_in_recv ? &b.recv : &b.send;
      if (b.send_in_recv) offset += b.send_offset;
      break;
    case NcclBuffer::kRecv:
      base = &b.recv;
      break;
    case NcclBuffer::kScratch:
      base = &b.scratch;
      break;
  }
  if (offset + count > base->size()) {
    ADD_FAILURE() << "rank " << rank << ": " << what << " addresses [" << offset << ", "
                  << offset + count << ") of a buffer of " << base->size() << " elements";
    return nullptr;
  }
  return base->data() + offset;
}

inline bool is_p2p(NcclCallKind kind) {
  return kind == NcclCallKind::kSend || kind == NcclCallKind::kRecv;
}

/// Runs schedules[r] on ranks[r] for every rank r (sum reduction).
inline void replay(const std::vector<NcclSchedule>& schedules, std::vector<RankBuffers>& ranks) {
  const int n = static_cast<int>(ranks.size());
  ASSERT_EQ(schedules.size(), ranks.size());
  // 1. Each rank's own-part copies, on its stream before anything else.
  for (int r = 0; r < n; ++r) {
    for (const NcclCall& c : schedules[static_cast<std::size_t>(r)].copies) {
      ASSERT_EQ(c.kind, NcclCallKind::kCopy) << "rank " << r << ": only copies precede the group";
      RankBuffers& b = ranks[static_cast<std::size_t>(r)];
      const std::int64_t* in = resolve(b, c.in, c.count, r, "copy source");
      std::int64_t* out = resolve(b, c.out, c.count, r, "copy destination");
      ASSERT_TRUE(in != nullptr && out != nullptr);
      const std::vector<std::int64_t> tmp(in, in + c.count);
      std::copy(tmp.begin(), tmp.end(), out);
    }
  }
  // 2. Collectives, matched by position.
  std::vector<std::vector<NcclCall>> collectives(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    for (const NcclCall& c : schedules[static_cast<std::size_t>(r)].calls) {
      ASSERT_NE(c.kind, NcclCallKind::kCopy) << "rank " << r << ": a copy inside the group";
      if (!is_p2p(c.kind)) collectives[static_cast<std::size_t>(r)].push_back(c);
    }
  }
  for (int r = 1; r < n; ++r) {
    ASSERT_EQ(collectives[static_cast<std::size_t>(r)].size(), collectives[0].size())
        << "rank " << r << " issues a different number of collectives than rank 0: NCCL hangs";
  }
  for (std::size_t k = 0; k < collectives[0].size(); ++k) {
    const NcclCall& first = collectives[0][k];
    for (int r = 1; r < n; ++r) {
      const NcclCall& c = collectives[static_cast<std::size_t>(r)][k];
      ASSERT_TRUE(c.kind == first.kind && c.count == first.count && c.peer == first.peer)
          << "collective " << k << " of rank " << r << " (" << to_string(c.kind) << ", count "
          << c.count << ", root " << c.peer << ") does not match rank 0's ("
          << to_string(first.kind) << ", count " << first.count << ", root " << first.peer << ")";
    }
    const std::size_t count = first.count;
    const int root = first.peer;
    const auto un = static_cast<std::size_t>(n);
    // Read every input before writing any output (in-place forms alias them).
    std::vector<std::vector<std::int64_t>> inputs(un);
    const std::size_t in_count = first.kind == NcclCallKind::kReduceScatter ? count * un : count;
    for (int r = 0; r < n; ++r) {
      const bool reads = !(first.kind == NcclCallKind::kBroadcast && r != root);
      if (!reads) continue;
      const NcclCall& c = collectives[static_cast<std::size_t>(r)][k];
      const std::int64_t* in =
          resolve(ranks[static_cast<std::size_t>(r)], c.in, in_count, r, to_string(c.kind).data());
      ASSERT_NE(in, nullptr);
      inputs[static_cast<std::size_t>(r)].assign(in, in + in_count);
    }
    auto sum_of = [&](std::size_t from, std::size_t i) {
      std::int64_t s = 0;
      for (const auto& v : inputs) s += v[from + i];
      return s;
    };
    for (int r = 0; r < n; ++r) {
      const NcclCall& c = collectives[static_cast<std::size_t>(r)][k];
      RankBuffers& b = ranks[static_cast<std::size_t>(r)];
      switch (first.kind) {
        case NcclCallKind::kAllReduce: {
          std::int64_t* out = resolve(b, c.out, count, r, "ncclAllReduce recvbuff");
          ASSERT_NE(out, nullptr);
          for (std::size_t i = 0; i < count; ++i) out[i] = sum_of(0, i);
          break;
        }
        case NcclCallKind::kReduceScatter: {
          std::int64_t* out = resolve(b, c.out, count, r, "ncclReduceScatter recvbuff");
          ASSERT_NE(out, nullptr);
          for (std::size_t i = 0; i < count; ++i) {
            out[i] = sum_of(static_cast<std::size_t>(r) * count, i);
          }
          break;
        }
        case NcclCallKind::kAllGather: {
          std::int64_t* out = resolve(b, c.out, count * un, r, "ncclAllGather recvbuff");
          ASSERT_NE(out, nullptr);
          for (std::size_t s = 0; s < un; ++s) {
            std::copy(inputs[s].begin(), inputs[s].end(), out + s * count);
          }
          break;
        }
        case NcclCallKind::kReduce: {
          if (r != root) break;
          std::int64_t* out = resolve(b, c.out, count, r, "ncclReduce recvbuff");
          ASSERT_NE(out, nullptr);
          for (std::size_t i = 0; i < count; ++i) out[i] = sum_of(0, i);
          break;
        }
        case NcclCallKind::kBroadcast: {
          std::int64_t* out = resolve(b, c.out, count, r, "ncclBroadcast recvbuff");
          ASSERT_NE(out, nullptr);
          const auto& source = inputs[static_cast<std::size_t>(root)];
          std::copy(source.begin(), source.end(), out);
          break;
        }
        default:
          FAIL() << "unexpected collective " << to_string(first.kind);
      }
    }
  }
  // 3. Point-to-point: the i-th send from s to d meets the i-th receive at d from s.
  std::map<std::pair<int, int>, std::vector<NcclCall>> sends, recvs;
  for (int r = 0; r < n; ++r) {
    for (const NcclCall& c : schedules[static_cast<std::size_t>(r)].calls) {
      if (c.kind == NcclCallKind::kSend) sends[{r, c.peer}].push_back(c);
      if (c.kind == NcclCallKind::kRecv) recvs[{c.peer, r}].push_back(c);
    }
  }
  for (const auto& [pair, list] : sends) {
    const auto& [src, dst] = pair;
    ASSERT_TRUE(src != dst) << "rank " << src << " sends to itself";
    const auto it = recvs.find(pair);
    ASSERT_TRUE(it != recvs.end() && it->second.size() == list.size())
        << list.size() << " send(s) from rank " << src << " to rank " << dst
        << " without matching receives: NCCL hangs";
    for (std::size_t i = 0; i < list.size(); ++i) {
      const NcclCall& s = list[i];
      const NcclCall& rc = it->second[i];
      ASSERT_EQ(s.count, rc.count) << "send " << i << " from " << src << " to " << dst;
      const std::int64_t* in =
          resolve(ranks[static_cast<std::size_t>(src)], s.in, s.count, src, "ncclSend sendbuff");
      std::int64_t* out =
          resolve(ranks[static_cast<std::size_t>(dst)], rc.out, rc.count, dst, "ncclRecv recvbuff");
      ASSERT_TRUE(in != nullptr && out != nullptr);
      std::copy(in, in + s.count, out);
    }
  }
  for (const auto& [pair, list] : recvs) {
    ASSERT_TRUE(sends.count(pair) == 1)
        << list.size() << " receive(s) at rank " << pair.second << " from rank " << pair.first
        << " without matching sends: NCCL hangs";
  }
}

}  // namespace canzona::comm::test
