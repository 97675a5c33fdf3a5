// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Hand-built ZeRO-1 buffers for the plan tests: the paper-spec §3.6 Case A, and Megatron-style
// packing of arbitrary entry sizes (64-aligned starts, bucket ends padded).
#pragma once

#include <canzona/layout/zero1.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

namespace canzona::plan::testing {

inline std::int64_t round_up(std::int64_t value, std::int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

/// A buffer of `buckets` (each a list of entry sizes, buffer order) for `dp` ranks: entry starts
/// rounded up to `alignment`, bucket ends to `bucket_alignment`. param_index = entry index.
inline layout::Buffer make_buffer(int dp, const std::vector<std::vector<std::int64_t>>& buckets,
                                  std::int64_t alignment, std::int64_t bucket_alignment) {
  layout::Buffer buffer;
  buffer.name = "matrix";
  buffer.dp = dp;
  std::int64_t cursor = 0;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    layout::Bucket bucket;
    bucket.index = static_cast<int>(b);
    bucket.start = cursor;
    bucket.dp = dp;
    bucket.first_entry = buffer.entries.size();
    for (const std::int64_t size : buckets[b]) {
      layout::BufferEntry e;
      e.param_index = buffer.entries.size();
      e.name = fmt::format("p{}", e.param_index);
      e.shape = {size};
      e.matrix = true;
      e.start = round_up(cursor, alignment);
      e.end = e.start + size;
      e.bucket = bucket.index;
      cursor = e.end;
      buffer.entries.push_back(e);
    }
    bucket.last_entry = buffer.entries.size() - 1;
    bucket.data_end = cursor;
    bucket.end = round_up(cursor, bucket_alignment);
    cursor = bucket.end;
    buffer.buckets.push_back(bucket);
  }
  buffer.total = cursor;
  return buffer;
}

/// paper-spec §3.6 Case A, R = 4, no padding: bucket 0 = [64, 8×10] (144), bucket 1 = [8×16]
/// (128).
inline layout::Buffer case_a() {
  std::vector<std::int64_t> b0 = {64};
  b0.insert(b0.end(), 10, 8);
  const std::vector<std::int64_t> b1(16, 8);
  return make_buffer(4, {b0, b1}, 1, 4);
}

/// One cost per entry: its numel.
inline std::vector<double> numel_costs(const layout::Buffer& buffer) {
  std::vector<double> costs;
  for (const auto& e : buffer.entries) {
    costs.push_back(static_cast<double>(e.numel()));
  }
  return costs;
}

}  // namespace canzona::plan::testing
