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

/// The copies of one phase, replayed every step in few backend operations: the dense ones
/// (contiguous on both sides) of equal size as one batched copy() each, the strided ones as one
/// copy_2d() each, so the operations grow with the distinct rectangle sizes, not with the
/// matrices. That order-free replay needs a list whose copies read nothing another writes:
/// checked on the first run (canzona::Error naming both copies otherwise). Their destinations
/// are disjoint by construction (the fragments tile each matrix, shard_blocks checks it).
class CopyList {
 public:
  void push_back(const Copy& copy);
  bool empty() const noexcept { return copies_.empty(); }
  std::size_t size() const noexcept { return copies_.size(); }

  /// Enqueues every copy on `backend` (no host synchronisation). The first call groups the
  /// copies and checks the list.
  void run(backend::Backend& backend);

 private:
  void prepare();

  /// Dense copies of `bytes` bytes each.
  struct Batch {
    std::size_t bytes = 0;
    std::vector<void*> dst;
    std::vector<const void*> src;
  };
  std::vector<Copy> copies_;
  std::vector<Batch> batches_;
  std::vector<Copy> strided_;
  bool prepared_ = false;
};

}  // namespace canzona::exec::detail
