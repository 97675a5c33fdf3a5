// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How many n×n matrices one call of the batched eigensolver may take. cusolverDnXsyevBatched
// documents n·lda·batchSize ≤ INT32_MAX as a limit of its implementation; the 5120-wide
// Shampoo / SOAP statistics of Qwen3-32B on one rank exceed it (about 4.3e9), so the cuda backend
// splits a larger batch into calls of at most this many matrices. Host-only and pure, so the
// rule is tested on machines without a GPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace canzona::backend::ops {

/// The solver's limit on n · lda · batch (lda = n here).
inline constexpr std::int64_t kSolverBatchElementLimit = std::numeric_limits<std::int32_t>::max();

/// Matrices per eigensolver call for `count` matrices of order n: the largest batch whose
/// n · n · batch stays within `limit`, at least 1 and at most count (0 when count ≤ 0). A single
/// matrix above the limit still gets a batch of 1: the solver itself then refuses it.
constexpr std::int64_t eigh_batch_size(std::int64_t n, std::int64_t count,
                                       std::int64_t limit = kSolverBatchElementLimit) {
  if (count <= 0 || n <= 0) return 0;
  if (n > limit / n) return 1;  // n · n alone is over the limit (and could overflow)
  return std::clamp<std::int64_t>(limit / (n * n), 1, count);
}

}  // namespace canzona::backend::ops
