// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Backend-independent half of every collective: argument validation, rank-major offsets and the
// trace entry with the direct-exchange byte counts documented in trace.hpp.
#include "canzona/comm/communicator.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <numeric>
#include <vector>

namespace canzona::comm {
namespace {

std::size_t sum(std::span<const std::size_t> counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}

std::vector<std::size_t> offsets(std::span<const std::size_t> counts) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t running = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    displs[i] = running;
    running += counts[i];
  }
  return displs;
}

}  // namespace

Communicator::Communicator(int rank, int size, std::string name)
    : rank_(rank), size_(size), name_(std::move(name)) {}

Communicator::~Communicator() = default;

void Communicator::fail(std::string_view call, const std::string& message) const {
  throw ConfigError(fmt::format("{} communicator '{}' (rank {} of {}): {}: {}", backend(), name_,
                                rank_, size_, call, message));
}

void Communicator::check_root(std::string_view call, int root) const {
  if (root < 0 || root >= size_) {
    fail(call, fmt::format("root {} is out of range [0, {})", root, size_));
  }
}

void Communicator::check_counts(std::string_view call, std::string_view what,
                                std::span<const std::size_t> counts) const {
  if (counts.size() != static_cast<std::size_t>(size_)) {
    fail(call,
         fmt::format("{} has {} entries, expected one per rank ({})", what, counts.size(), size_));
  }
}

void Communicator::label(Request& request, CollectiveOp op) const {
  request.set_origin(RequestOrigin{to_string(op), backend(), name_, rank_, size_});
}

void Communicator::record(CollectiveOp op, DataType type, int root, const Volume& volume) {
  const std::uint64_t e = size_of(type);
  trace_.push_back(TraceEntry{op, name_, size_, rank_, type, volume.count, root, volume.sent * e,
                              volume.received * e});
}

std::unique_ptr<Communicator> Communicator::split(int color, int key, std::string name) {
  return do_split(color, key, std::move(name));
}

Request Communicator::all_reduce(const void* send, void* recv, std::size_t count, DataType type,
                                 ReduceOp op) {
  constexpr std::string_view kCall = "all_reduce";
  (void)size_of(type);
  if (count > 0 && (send == nullptr || recv == nullptr)) {
    fail(kCall, fmt::format("null buffer with count {}", count));
  }
  Request request = do_all_reduce(send, recv, count, type, op);
  label(request, CollectiveOp::kAllReduce);
  record(CollectiveOp::kAllReduce, type, -1, all_reduce_volume(count, rank_, size_));
  return request;
}

Request Communicator::reduce_scatter(const void* send, void* recv,
                                     std::span<const std::size_t> counts, DataType type,
                                     ReduceOp op) {
  constexpr std::string_view kCall = "reduce_scatter";
  (void)size_of(type);
  check_counts(kCall, "counts", counts);
  const std::size_t total = sum(counts);
  const std::size_t mine = counts[static_cast<std::size_t>(rank_)];
  if (total > 0 && send == nullptr) {
    fail(kCall, fmt::format("null send buffer with {} elements in total", total));
  }
  if (mine > 0 && recv == nullptr) {
    fail(kCall, fmt::format("null receive buffer with counts[{}] = {}", rank_, mine));
  }
  const std::vector<std::size_t> displs = offsets(counts);
  Request request = do_reduce_scatter(send, recv, counts, displs, type, op);
  label(request, CollectiveOp::kReduceScatter);
  record(CollectiveOp::kReduceScatter, type, -1, reduce_scatter_volume(counts, rank_));
  return request;
}

Request Communicator::all_gather(const void* send, void* recv, std::span<const std::size_t> counts,
                                 DataType type) {
  constexpr std::string_view kCall = "all_gather";
  (void)size_of(type);
  check_counts(kCall, "counts", counts);
  const std::size_t total = sum(counts);
  const std::size_t mine = counts[static_cast<std::size_t>(rank_)];
  if (mine > 0 && send == nullptr) {
    fail(kCall, fmt::format("null send buffer with counts[{}] = {}", rank_, mine));
  }
  if (total > 0 && recv == nullptr) {
    fail(kCall, fmt::format("null receive buffer with {} elements in total", total));
  }
  const std::vector<std::size_t> displs = offsets(counts);
  Request request = do_all_gather(send, recv, counts, displs, type);
  label(request, CollectiveOp::kAllGather);
  record(CollectiveOp::kAllGather, type, -1, all_gather_volume(counts, rank_));
  return request;
}

Request Communicator::all_to_all(const void* send, std::span<const std::size_t> send_counts,
                                 std::span<const std::size_t> send_displs, void* recv,
                                 std::span<const std::size_t> recv_counts,
                                 std::span<const std::size_t> recv_displs, DataType type) {
  constexpr std::string_view kCall = "all_to_all";
  (void)size_of(type);
  check_counts(kCall, "send_counts", send_counts);
  check_counts(kCall, "send_displs", send_displs);
  check_counts(kCall, "recv_counts", recv_counts);
  check_counts(kCall, "recv_displs", recv_displs);
  const std::size_t send_total = sum(send_counts);
  const std::size_t recv_total = sum(recv_counts);
  if (send_total > 0 && send == nullptr) {
    fail(kCall, fmt::format("null send buffer with {} elements to send", send_total));
  }
  if (recv_total > 0 && recv == nullptr) {
    fail(kCall, fmt::format("null receive buffer with {} elements to receive", recv_total));
  }
  const std::size_t r = static_cast<std::size_t>(rank_);
  if (send_counts[r] != recv_counts[r]) {
    fail(kCall, fmt::format("send_counts[{0}] = {1} differs from recv_counts[{0}] = {2} (the part "
                            "a rank keeps for itself)",
                            rank_, send_counts[r], recv_counts[r]));
  }
  Request request =
      do_all_to_all(send, send_counts, send_displs, recv, recv_counts, recv_displs, type);
  label(request, CollectiveOp::kAllToAll);
  record(CollectiveOp::kAllToAll, type, -1, all_to_all_volume(send_counts, recv_counts, rank_));
  return request;
}

Request Communicator::broadcast(void* buf, std::size_t count, DataType type, int root) {
  constexpr std::string_view kCall = "broadcast";
  (void)size_of(type);
  check_root(kCall, root);
  if (count > 0 && buf == nullptr) {
    fail(kCall, fmt::format("null buffer with count {}", count));
  }
  Request request = do_broadcast(buf, count, type, root);
  label(request, CollectiveOp::kBroadcast);
  record(CollectiveOp::kBroadcast, type, root, broadcast_volume(count, rank_, size_, root));
  return request;
}

Request Communicator::reduce(const void* send, void* recv, std::size_t count, DataType type,
                             ReduceOp op, int root) {
  constexpr std::string_view kCall = "reduce";
  (void)size_of(type);
  check_root(kCall, root);
  const bool is_root = rank_ == root;
  if (count > 0 && send == nullptr) {
    fail(kCall, fmt::format("null send buffer with count {}", count));
  }
  if (count > 0 && is_root && recv == nullptr) {
    fail(kCall, fmt::format("null receive buffer on the root with count {}", count));
  }
  Request request = do_reduce(send, recv, count, type, op, root);
  label(request, CollectiveOp::kReduce);
  record(CollectiveOp::kReduce, type, root, reduce_volume(count, rank_, size_, root));
  return request;
}

Request Communicator::gather(const void* send, std::size_t send_count, void* recv,
                             std::span<const std::size_t> recv_counts, DataType type, int root) {
  constexpr std::string_view kCall = "gather";
  (void)size_of(type);
  check_root(kCall, root);
  check_counts(kCall, "recv_counts", recv_counts);
  const std::size_t mine = recv_counts[static_cast<std::size_t>(rank_)];
  if (send_count != mine) {
    fail(kCall,
         fmt::format("send_count {} differs from recv_counts[{}] = {}", send_count, rank_, mine));
  }
  const bool is_root = rank_ == root;
  const std::size_t total = sum(recv_counts);
  if (send_count > 0 && send == nullptr) {
    fail(kCall, fmt::format("null send buffer with send_count {}", send_count));
  }
  if (is_root && total > 0 && recv == nullptr) {
    fail(kCall, fmt::format("null receive buffer on the root with {} elements", total));
  }
  const std::vector<std::size_t> displs = offsets(recv_counts);
  Request request = do_gather(send, send_count, recv, recv_counts, displs, type, root);
  label(request, CollectiveOp::kGather);
  record(CollectiveOp::kGather, type, root, gather_volume(recv_counts, rank_, root));
  return request;
}

Request Communicator::scatter(const void* send, std::span<const std::size_t> send_counts,
                              void* recv, std::size_t recv_count, DataType type, int root) {
  constexpr std::string_view kCall = "scatter";
  (void)size_of(type);
  check_root(kCall, root);
  check_counts(kCall, "send_counts", send_counts);
  const std::size_t mine = send_counts[static_cast<std::size_t>(rank_)];
  if (recv_count != mine) {
    fail(kCall,
         fmt::format("recv_count {} differs from send_counts[{}] = {}", recv_count, rank_, mine));
  }
  const bool is_root = rank_ == root;
  const std::size_t total = sum(send_counts);
  if (is_root && total > 0 && send == nullptr) {
    fail(kCall, fmt::format("null send buffer on the root with {} elements", total));
  }
  if (recv_count > 0 && recv == nullptr) {
    fail(kCall, fmt::format("null receive buffer with recv_count {}", recv_count));
  }
  const std::vector<std::size_t> displs = offsets(send_counts);
  Request request = do_scatter(send, send_counts, displs, recv, recv_count, type, root);
  label(request, CollectiveOp::kScatter);
  record(CollectiveOp::kScatter, type, root, scatter_volume(send_counts, rank_, root));
  return request;
}

Request Communicator::barrier() {
  Request request = do_barrier();
  label(request, CollectiveOp::kBarrier);
  record(CollectiveOp::kBarrier, DataType::kUInt8, -1, Volume{});
  return request;
}

}  // namespace canzona::comm
