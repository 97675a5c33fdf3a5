// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The NCCL issue schedules: which calls, with which counts, offsets and roots, each rank makes.
#include "canzona/comm/nccl_schedule.hpp"

#include <algorithm>
#include <functional>

namespace canzona::comm {
namespace {

bool all_equal(std::span<const std::size_t> counts) {
  return std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
}

NcclRef send_at(std::size_t offset) { return NcclRef{NcclBuffer::kSend, offset}; }
NcclRef recv_at(std::size_t offset) { return NcclRef{NcclBuffer::kRecv, offset}; }

NcclSchedule single(NcclCall call) {
  NcclSchedule s;
  if (call.count > 0) s.calls.push_back(call);
  return s;
}

}  // namespace

std::string_view to_string(NcclCallKind kind) {
  switch (kind) {
    case NcclCallKind::kAllReduce:
      return "ncclAllReduce";
    case NcclCallKind::kReduceScatter:
      return "ncclReduceScatter";
    case NcclCallKind::kAllGather:
      return "ncclAllGather";
    case NcclCallKind::kReduce:
      return "ncclReduce";
    case NcclCallKind::kBroadcast:
      return "ncclBroadcast";
    case NcclCallKind::kSend:
      return "ncclSend";
    case NcclCallKind::kRecv:
      return "ncclRecv";
    case NcclCallKind::kCopy:
      return "copy";
  }
  return "unknown";
}

NcclSchedule nccl_all_reduce(std::size_t count) {
  return single({NcclCallKind::kAllReduce, send_at(0), recv_at(0), count, -1});
}

NcclSchedule nccl_reduce_scatter(int rank, std::span<const std::size_t> counts,
                                 std::span<const std::size_t> displs) {
  if (all_equal(counts)) {
    return single({NcclCallKind::kReduceScatter, send_at(0), recv_at(0), counts[0], -1});
  }
  NcclSchedule s;
  s.grouped = true;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const int root = static_cast<int>(i);
    const NcclRef part = send_at(displs[i]);
    s.calls.push_back(
        {NcclCallKind::kReduce, part, root == rank ? recv_at(0) : part, counts[i], root});
  }
  return s;
}

NcclSchedule nccl_all_gather(int rank, std::span<const std::size_t> counts,
                             std::span<const std::size_t> displs) {
  if (all_equal(counts)) {
    return single({NcclCallKind::kAllGather, send_at(0), recv_at(0), counts[0], -1});
  }
  NcclSchedule s;
  s.grouped = true;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 0) continue;
    const int root = static_cast<int>(i);
    const NcclRef slot = recv_at(displs[i]);
    s.calls.push_back(
        {NcclCallKind::kBroadcast, root == rank ? send_at(0) : slot, slot, counts[i], root});
  }
  return s;
}

NcclSchedule nccl_all_to_all(int rank, std::span<const std::size_t> send_counts,
                             std::span<const std::size_t> send_displs,
                             std::span<const std::size_t> recv_counts,
                             std::span<const std::size_t> recv_displs) {
  NcclSchedule s;
  s.grouped = true;
  const auto self = static_cast<std::size_t>(rank);
  if (send_counts[self] > 0) {
    s.copies.push_back({NcclCallKind::kCopy, send_at(send_displs[self]), recv_at(recv_displs[self]),
                        send_counts[self], -1});
  }
  for (std::size_t j = 0; j < send_counts.size(); ++j) {
    if (j == self) continue;
    const int peer = static_cast<int>(j);
    if (send_counts[j] > 0) {
      s.calls.push_back({NcclCallKind::kSend, send_at(send_displs[j]), {}, send_counts[j], peer});
    }
    if (recv_counts[j] > 0) {
      s.calls.push_back({NcclCallKind::kRecv, {}, recv_at(recv_displs[j]), recv_counts[j], peer});
    }
  }
  return s;
}

NcclSchedule nccl_broadcast(std::size_t count, int root) {
  return single({NcclCallKind::kBroadcast, recv_at(0), recv_at(0), count, root});
}

NcclSchedule nccl_reduce(int rank, std::size_t count, int root) {
  return single(
      {NcclCallKind::kReduce, send_at(0), rank == root ? recv_at(0) : send_at(0), count, root});
}

NcclSchedule nccl_gather(int rank, std::size_t send_count, std::span<const std::size_t> recv_counts,
                         std::span<const std::size_t> displs, int root) {
  NcclSchedule s;
  s.grouped = true;
  if (rank == root) {
    const auto self = static_cast<std::size_t>(root);
    if (recv_counts[self] > 0) {
      s.copies.push_back(
          {NcclCallKind::kCopy, send_at(0), recv_at(displs[self]), recv_counts[self], -1});
    }
    for (std::size_t j = 0; j < recv_counts.size(); ++j) {
      if (j == self || recv_counts[j] == 0) continue;
      s.calls.push_back(
          {NcclCallKind::kRecv, {}, recv_at(displs[j]), recv_counts[j], static_cast<int>(j)});
    }
  } else if (send_count > 0) {
    s.calls.push_back({NcclCallKind::kSend, send_at(0), {}, send_count, root});
  }
  return s;
}

NcclSchedule nccl_scatter(int rank, std::span<const std::size_t> send_counts,
                          std::span<const std::size_t> displs, std::size_t recv_count, int root) {
  NcclSchedule s;
  s.grouped = true;
  if (rank == root) {
    const auto self = static_cast<std::size_t>(root);
    if (send_counts[self] > 0) {
      s.copies.push_back(
          {NcclCallKind::kCopy, send_at(displs[self]), recv_at(0), send_counts[self], -1});
    }
    for (std::size_t j = 0; j < send_counts.size(); ++j) {
      if (j == self || send_counts[j] == 0) continue;
      s.calls.push_back(
          {NcclCallKind::kSend, send_at(displs[j]), {}, send_counts[j], static_cast<int>(j)});
    }
  } else if (recv_count > 0) {
    s.calls.push_back({NcclCallKind::kRecv, {}, recv_at(0), recv_count, root});
  }
  return s;
}

NcclSchedule nccl_barrier() {
  const NcclRef word{NcclBuffer::kScratch, 0};
  return single({NcclCallKind::kAllReduce, word, word, 1, -1});
}

}  // namespace canzona::comm
