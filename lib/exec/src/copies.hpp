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

/// A resolved copy of a rows × width rectangle (elements, row-major, leading dims in elements).
struct Copy {
  float* dst = nullptr;
  const float* src = nullptr;
  std::int64_t rows = 0;
  std::int64_t width = 0;
  std::int64_t dst_ld = 0;
  std::int64_t src_ld = 0;
};

/// Shard → fragment (gather direction).
Copy to_fragment(const ShardBlock& block, float* fragment, const float* shard);
/// Fragment → shard (scatter direction).
Copy to_shard(const ShardBlock& block, float* shard, const float* fragment);
/// A contiguous copy of `count` elements.
Copy contiguous(float* dst, const float* src, std::int64_t count);

/// Enqueues the copies on the backend in order: a plain copy() when the rectangle is
/// contiguous on both sides, copy_2d() otherwise.
void run_copies(backend::Backend& backend, std::span<const Copy> copies);

}  // namespace canzona::exec::detail
