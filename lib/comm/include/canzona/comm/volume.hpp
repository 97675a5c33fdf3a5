// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The direct-exchange volume of each collective (trace.hpp defines it), as pure functions of the
// arguments. The Communicator records these in its trace and planners predict them, so a plan's
// promised bytes and the executor's trace are computed by the same code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>

namespace canzona::comm {

/// One rank's view of a collective, in ELEMENTS: the collective's count (nccl-tests' S / e) and
/// the elements this rank sends and receives in a direct exchange.
struct Volume {
  std::size_t count = 0;
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

namespace detail {
inline std::size_t sum(std::span<const std::size_t> counts) {
  return std::accumulate(counts.begin(), counts.end(), std::size_t{0});
}
}  // namespace detail

/// all_reduce of `count` elements over `size` ranks: reduce-scatter + all-gather over the even
/// split (the first count mod size chunks one element larger).
inline Volume all_reduce_volume(std::size_t count, int rank, int size) {
  const auto n = static_cast<std::size_t>(size);
  const auto r = static_cast<std::size_t>(rank);
  const std::size_t chunk = count / n + (r < count % n ? 1 : 0);
  const std::uint64_t moved = (count - chunk) + (n - 1) * chunk;
  return {count, moved, moved};
}

/// Uneven reduce_scatter with one count per rank.
inline Volume reduce_scatter_volume(std::span<const std::size_t> counts, int rank) {
  const std::size_t total = detail::sum(counts);
  const std::size_t mine = counts[static_cast<std::size_t>(rank)];
  return {total, total - mine, (counts.size() - 1) * mine};
}

/// Uneven all_gather with one count per rank.
inline Volume all_gather_volume(std::span<const std::size_t> counts, int rank) {
  const std::size_t total = detail::sum(counts);
  const std::size_t mine = counts[static_cast<std::size_t>(rank)];
  return {total, (counts.size() - 1) * mine, total - mine};
}

/// all_to_all-v: what this rank sends to and receives from every rank (itself included).
inline Volume all_to_all_volume(std::span<const std::size_t> send_counts,
                                std::span<const std::size_t> recv_counts, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  const std::size_t send_total = detail::sum(send_counts);
  return {send_total, send_total - send_counts[r], detail::sum(recv_counts) - recv_counts[r]};
}

/// broadcast of `count` elements from `root`.
inline Volume broadcast_volume(std::size_t count, int rank, int size, int root) {
  const bool is_root = rank == root;
  return {count, is_root ? static_cast<std::uint64_t>(size - 1) * count : 0,
          is_root ? 0 : std::uint64_t{count}};
}

/// reduce of `count` elements to `root`.
inline Volume reduce_volume(std::size_t count, int rank, int size, int root) {
  const bool is_root = rank == root;
  return {count, is_root ? 0 : std::uint64_t{count},
          is_root ? static_cast<std::uint64_t>(size - 1) * count : 0};
}

/// Uneven gather to `root` (recv_counts[j] elements from rank j).
inline Volume gather_volume(std::span<const std::size_t> recv_counts, int rank, int root) {
  const std::size_t total = detail::sum(recv_counts);
  const std::size_t mine = recv_counts[static_cast<std::size_t>(rank)];
  const bool is_root = rank == root;
  return {total, is_root ? 0 : std::uint64_t{mine}, is_root ? std::uint64_t{total - mine} : 0};
}

/// Uneven scatter from `root` (send_counts[j] elements to rank j).
inline Volume scatter_volume(std::span<const std::size_t> send_counts, int rank, int root) {
  const std::size_t total = detail::sum(send_counts);
  const std::size_t mine = send_counts[static_cast<std::size_t>(rank)];
  const bool is_root = rank == root;
  return {total, is_root ? std::uint64_t{total - mine} : 0, is_root ? 0 : std::uint64_t{mine}};
}

}  // namespace canzona::comm
