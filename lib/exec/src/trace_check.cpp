// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/exec/trace_check.hpp"

#include <fmt/format.h>

#include <vector>

namespace canzona::exec {
namespace {

std::string describe(const plan::PlannedCollective& c) {
  return fmt::format("{} size={} count={} root={} sent={}B recv={}B type={}", c.op, c.group_size,
                     c.count, c.root, c.bytes_sent, c.bytes_received, comm::to_string(c.dtype));
}

std::string describe(const comm::TraceEntry& e) {
  return fmt::format("{} size={} count={} root={} sent={}B recv={}B type={}", e.op_name(),
                     e.group_size, e.count, e.root, e.bytes_sent, e.bytes_received,
                     comm::to_string(e.type));
}

bool same(const plan::PlannedCollective& c, const comm::TraceEntry& e) {
  return c.op == e.op_name() && c.group_size == e.group_size && c.count == e.count &&
         c.root == e.root && c.bytes_sent == e.bytes_sent && c.bytes_received == e.bytes_received &&
         e.type == c.dtype;
}

std::string compare(std::string_view group, const std::vector<plan::PlannedCollective>& planned,
                    const comm::Trace& trace) {
  for (std::size_t i = 0; i < planned.size() && i < trace.size(); ++i) {
    if (!same(planned[i], trace[i])) {
      return fmt::format("{} collective #{}: plan says [{}], executor issued [{}]", group, i,
                         describe(planned[i]), describe(trace[i]));
    }
  }
  if (planned.size() != trace.size()) {
    return fmt::format("{} group: the plan lists {} collectives, the executor issued {}", group,
                       planned.size(), trace.size());
  }
  return {};
}

}  // namespace

std::string trace_mismatch(const plan::StepPlan& plan, int dp_rank, int tp_rank,
                           const comm::Trace& dp_trace, const comm::Trace& tp_trace) {
  std::vector<plan::PlannedCollective> dp;
  std::vector<plan::PlannedCollective> tp;
  for (plan::PlannedCollective& c : plan::rank_collectives(plan, dp_rank, tp_rank)) {
    (c.group == plan::Group::kDp ? dp : tp).push_back(std::move(c));
  }
  std::string mismatch = compare("dp", dp, dp_trace);
  if (mismatch.empty()) mismatch = compare("tp", tp, tp_trace);
  return mismatch;
}

}  // namespace canzona::exec
