// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How alpha_balanced_partition consults the RememberedPartitions scope of its thread.
#pragma once

#include "canzona/plan/dp_partition.hpp"
#include "canzona/plan/partition_memo.hpp"

#include <canzona/layout/zero1.hpp>

#include <functional>
#include <span>

namespace canzona::plan::detail {

/// `plan()` outside a RememberedPartitions scope. Inside one: the remembered answer for inputs
/// equal in every field the partition depends on (entries' places and kinds, buckets, dp,
/// alpha, costs bit for bit, balance), else `plan()`, remembered. A plan that throws is not.
DpPartition remembered_partition(const layout::Buffer& buffer, double alpha,
                                 std::span<const double> costs, BalanceUnit balance,
                                 const std::function<DpPartition()>& plan);

}  // namespace canzona::plan::detail
