// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The last answers of alpha_balanced_partition, keyed by every input it reads. Projecting or
// running a grid plans one model for several strategies (Canzona, canzona+sc and asc share their
// DP partitions), and on MoE models at hundreds of ranks one refined partition costs 0.1–0.5 s.
// The planner is a pure function of these inputs, so a remembered answer is the answer.
#pragma once

#include "canzona/plan/dp_partition.hpp"

#include <canzona/layout/zero1.hpp>

#include <functional>
#include <span>

namespace canzona::plan::detail {

/// `plan(buffer, alpha, costs, balance)`, or the copy of its answer for inputs equal in every
/// field the partition depends on (entries' places and kinds, buckets, dp, alpha, costs bit for
/// bit, balance). Thread-safe; keeps the last few answers.
DpPartition remembered_partition(const layout::Buffer& buffer, double alpha,
                                 std::span<const double> costs, BalanceUnit balance,
                                 const std::function<DpPartition()>& plan);

}  // namespace canzona::plan::detail
