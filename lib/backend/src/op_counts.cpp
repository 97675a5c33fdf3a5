// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The interface's bookkeeping: operation counts and the item-count check of batched operations.
#include "canzona/backend/backend.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::backend {

OpCounts operator-(const OpCounts& later, const OpCounts& earlier) {
  return OpCounts{
      later.operations - earlier.operations, later.synchronizations - earlier.synchronizations,
      later.allocations - earlier.allocations, later.allocated_bytes - earlier.allocated_bytes};
}

void Backend::count_batch(const char* operation, std::initializer_list<std::int64_t> counts) {
  const std::int64_t first = *counts.begin();
  for (const std::int64_t c : counts) {
    if (c != first || c < 0) {
      throw Error(
          fmt::format("{} backend: {} takes the same number of items in every operand, got {}",
                      name(), operation, fmt::join(counts.begin(), counts.end(), ", ")));
    }
  }
  ++counts_.operations;
}

}  // namespace canzona::backend
