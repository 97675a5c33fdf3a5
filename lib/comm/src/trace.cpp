// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Trace helpers: collective names, byte totals and the text table for logs and the CLI.
#include "canzona/comm/trace.hpp"

#include <fmt/format.h>

namespace canzona::comm {

std::string_view to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce:
      return "all_reduce";
    case CollectiveOp::kReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::kAllGather:
      return "all_gather";
    case CollectiveOp::kAllToAll:
      return "all_to_all";
    case CollectiveOp::kBroadcast:
      return "broadcast";
    case CollectiveOp::kReduce:
      return "reduce";
    case CollectiveOp::kGather:
      return "gather";
    case CollectiveOp::kScatter:
      return "scatter";
    case CollectiveOp::kBarrier:
      return "barrier";
  }
  return "invalid";
}

std::uint64_t total_bytes_sent(const Trace& trace) {
  std::uint64_t total = 0;
  for (const TraceEntry& entry : trace) {
    total += entry.bytes_sent;
  }
  return total;
}

std::uint64_t total_bytes_received(const Trace& trace) {
  std::uint64_t total = 0;
  for (const TraceEntry& entry : trace) {
    total += entry.bytes_received;
  }
  return total;
}

std::string format_trace(const Trace& trace) {
  std::string out =
      fmt::format("{:>5}  {:<14}  {:<8}  {:>5}  {:>5}  {:<8}  {:>12}  {:>4}  {:>14}  {:>14}\n", "#",
                  "op", "group", "ranks", "rank", "type", "count", "root", "sent_B", "recv_B");
  std::size_t index = 0;
  for (const TraceEntry& e : trace) {
    out += fmt::format("{:>5}  {:<14}  {:<8}  {:>5}  {:>5}  {:<8}  {:>12}  {:>4}  {:>14}  {:>14}\n",
                       index++, to_string(e.op), e.group, e.group_size, e.rank, to_string(e.type),
                       e.count, e.root < 0 ? std::string("-") : std::to_string(e.root),
                       e.bytes_sent, e.bytes_received);
  }
  out += fmt::format("{:>5}  {:<14}  {:<8}  {:>5}  {:>5}  {:<8}  {:>12}  {:>4}  {:>14}  {:>14}\n",
                     "total", fmt::format("{} calls", trace.size()), "", "", "", "", "", "",
                     total_bytes_sent(trace), total_bytes_received(trace));
  return out;
}

}  // namespace canzona::comm
