// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How many n×n matrices one call of the batched eigensolver takes. Two limits:
// - Bitwise independence from the batch. cuSOLVER's default syevBatched algorithm changes with
//   the batch size above small n: on an H200 (cuSOLVER 12.0.4) a matrix of order 64 or 300 got
//   other eigenpairs in a batch of 5 than alone, while orders 1, 7, 32 and 33 agreed bit for bit,
//   and cuSOLVER 12.0 refuses the option that would fix the algorithm (CUSOLVER_ALG_1). The
//   executor groups same-shape matrices differently per strategy, and every strategy must match
//   one process bit for bit, so above kBatchedEighMaxOrder each matrix is solved alone.
// - Size. cusolverDnXsyevBatched documents n·lda·batchSize ≤ INT32_MAX.
// Host-only and pure, so the rule is tested on machines without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace canzona::backend::ops {

/// The largest order solved in batches (seen batch-independent; also syevjBatched's documented
/// limit, the batched Jacobi path's domain).
inline constexpr std::int64_t kBatchedEighMaxOrder = 32;

/// The solver's limit on n · lda · batch (lda = n here).
inline constexpr std::int64_t kSolverBatchElementLimit = std::numeric_limits<std::int32_t>::max();

/// Matrices per eigensolver call for `count` matrices of order n (0 when there are none): 1
/// above kBatchedEighMaxOrder, else the largest batch within `limit` elements, at most count.
constexpr std::int64_t eigh_batch_size(std::int64_t n, std::int64_t count,
                                       std::int64_t limit = kSolverBatchElementLimit) {
  if (count <= 0 || n <= 0) return 0;
  if (n > kBatchedEighMaxOrder) return 1;
  return std::clamp<std::int64_t>(limit / (n * n), 1, count);
}

}  // namespace canzona::backend::ops
