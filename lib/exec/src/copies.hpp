// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Moving matrix data between TP shards and optimizer fragments (internal). A fragment is the
// concatenation of row ranges of the TP-gathered matrix; a shard is a row block (column
// parallel) or a column block (row parallel) of it. shard_blocks() says which rectangle of which
// shard lands where in which fragment; the executor turns those into pointer copies once, at
// construction, and replays them every step.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace canzona::exec::detail {

/// One rectangle shared by a fragment and a shard. Offsets, widths and leading dimensions are
/// in elements; both sides are row-major.
struct ShardBlock {
  std::size_t fragment = 0;  ///< MatrixPlan::fragments index
  int shard = 0;             ///< TP rank holding the rectangle
  std::int64_t fragment_offset = 0;
  std::int64_t shard_offset = 0;
  std::int64_t rows = 0;
  std::int64_t width = 0;
  std::int64_t fragment_ld = 0;
  std::int64_t shard_ld = 0;
};

/// The blocks that tile every fragment of `matrix` when the gathered matrix is split into
/// `parts` shards along its TP dim (parts = 1: the local matrix is the whole matrix). Fragments
/// are numbered in MatrixPlan::fragments order and each is row-major with full.cols columns.
/// canzona::Error when the fragments do not tile the matrix's rows or columns.
std::vector<ShardBlock> shard_blocks(const plan::MatrixPlan& matrix, int parts);

/// First element of each fragment of `m` inside an area holding its fragments back to back
/// (MatrixPlan::fragments order).
std::vector<std::int64_t> fragment_starts(const plan::MatrixPlan& m);

/// A resolved copy of a rows × width rectangle of `element_bytes`-byte elements (row-major;
/// widths, leading dims and offsets in elements).
struct Copy {
  void* dst = nullptr;
  const void* src = nullptr;
  std::int64_t rows = 0;
  std::int64_t width = 0;
  std::int64_t dst_ld = 0;
  std::int64_t src_ld = 0;
  std::size_t element_bytes = sizeof(float);
};

/// Shard → fragment (gather direction); both arrays hold `element_bytes`-byte elements.
Copy to_fragment(const ShardBlock& block, void* fragment, const void* shard,
                 std::size_t element_bytes = sizeof(float));
/// Fragment → shard (scatter direction).
Copy to_shard(const ShardBlock& block, void* shard, const void* fragment,
              std::size_t element_bytes = sizeof(float));
/// A contiguous copy of `count` elements.
Copy contiguous(void* dst, const void* src, std::int64_t count,
                std::size_t element_bytes = sizeof(float));

/// `base` advanced by `elements` elements of `element_bytes` bytes.
inline void* offset(void* base, std::int64_t elements, std::size_t element_bytes) {
  return static_cast<std::byte*>(base) + elements * static_cast<std::int64_t>(element_bytes);
}
inline const void* offset(const void* base, std::int64_t elements, std::size_t element_bytes) {
  return static_cast<const std::byte*>(base) + elements * static_cast<std::int64_t>(element_bytes);
}

/// Enqueues the copies on the backend in order: a plain copy() when the rectangle is
/// contiguous on both sides, copy_2d() otherwise.
void run_copies(backend::Backend& backend, std::span<const Copy> copies);

}  // namespace canzona::exec::detail
