// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "copies.hpp"

#include <canzona/core/error.hpp>
#include <canzona/model/parameters.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <span>

namespace canzona::exec::detail {
namespace {

void check_tiling(const plan::MatrixPlan& m, int parts) {
  const bool row_parallel = parts > 1 && m.tp_dim == model::kRowParallel;
  const std::int64_t split = row_parallel ? m.full.cols : m.full.rows;
  if (parts < 1 || split % parts != 0) {
    throw Error(fmt::format("executor: matrix '{}' ({}x{}) cannot be cut into {} TP shards", m.name,
                            m.full.rows, m.full.cols, parts));
  }
  std::int64_t rows = 0;
  for (const model::Fragment& f : m.fragments) {
    std::int64_t covered = 0;
    for (const model::RowRange& r : f.rows) {
      if (r.begin < 0 || r.end > m.full.rows || r.begin >= r.end) {
        throw Error(
            fmt::format("executor: fragment '{}' has rows [{}, {}) outside matrix '{}' "
                        "with {} rows",
                        f.name, r.begin, r.end, m.name, m.full.rows));
      }
      covered += r.size();
    }
    if (f.shape.size() != 2 || f.shape[0] != covered || f.shape[1] != m.full.cols) {
      throw Error(
          fmt::format("executor: fragment '{}' of '{}' lists {} rows of {} columns but "
                      "has shape [{}]",
                      f.name, m.name, covered, m.full.cols, fmt::join(f.shape, ", ")));
    }
    rows += covered;
  }
  if (rows != m.full.rows) {
    throw Error(fmt::format("executor: the fragments of '{}' cover {} rows, the matrix has {}",
                            m.name, rows, m.full.rows));
  }
}

}  // namespace

std::vector<ShardBlock> shard_blocks(const plan::MatrixPlan& m, int parts) {
  check_tiling(m, parts);
  const bool by_columns = parts > 1 && m.tp_dim == model::kRowParallel;
  const std::int64_t cols = m.full.cols;
  std::vector<ShardBlock> blocks;
  for (std::size_t f = 0; f < m.fragments.size(); ++f) {
    std::int64_t fragment_row = 0;
    for (const model::RowRange& range : m.fragments[f].rows) {
      if (by_columns) {
        // Every shard holds a column block of each gathered row: one strided rectangle each.
        const std::int64_t local_cols = cols / parts;
        for (int j = 0; j < parts; ++j) {
          blocks.push_back(ShardBlock{f, j, fragment_row * cols + j * local_cols,
                                      range.begin * local_cols, range.size(), local_cols, cols,
                                      local_cols});
        }
      } else {
        // Rows live in one shard each: the range splits at shard boundaries into row runs.
        const std::int64_t local_rows = m.full.rows / parts;
        for (std::int64_t begin = range.begin; begin < range.end;) {
          const std::int64_t j = begin / local_rows;
          const std::int64_t end = std::min(range.end, (j + 1) * local_rows);
          blocks.push_back(
              ShardBlock{f, static_cast<int>(j), (fragment_row + begin - range.begin) * cols,
                         (begin - j * local_rows) * cols, end - begin, cols, cols, cols});
          begin = end;
        }
      }
      fragment_row += range.size();
    }
  }
  return blocks;
}

std::vector<std::int64_t> fragment_starts(const plan::MatrixPlan& m) {
  std::vector<std::int64_t> starts;
  std::int64_t at = 0;
  for (const model::Fragment& f : m.fragments) {
    starts.push_back(at);
    at += f.numel();
  }
  return starts;
}

Copy to_fragment(const ShardBlock& b, void* fragment, const void* shard,
                 std::size_t element_bytes) {
  return Copy{offset(fragment, b.fragment_offset, element_bytes),
              offset(shard, b.shard_offset, element_bytes),
              b.rows,
              b.width,
              b.fragment_ld,
              b.shard_ld,
              element_bytes};
}

Copy to_shard(const ShardBlock& b, void* shard, const void* fragment, std::size_t element_bytes) {
  return Copy{offset(shard, b.shard_offset, element_bytes),
              offset(fragment, b.fragment_offset, element_bytes),
              b.rows,
              b.width,
              b.shard_ld,
              b.fragment_ld,
              element_bytes};
}

Copy contiguous(void* dst, const void* src, std::int64_t count, std::size_t element_bytes) {
  return Copy{dst, src, 1, count, count, count, element_bytes};
}

void CopyList::push_back(const Copy& copy) {
  copies_.push_back(copy);
  prepared_ = false;
}

void CopyList::prepare() {
  batches_.clear();
  strided_.clear();
  // Byte ranges [first, end) each copy reads and writes (a strided rectangle's bounding range).
  struct Range {
    std::uintptr_t first, end;
    std::size_t copy;
  };
  std::vector<Range> reads, writes;
  for (std::size_t i = 0; i < copies_.size(); ++i) {
    const Copy& c = copies_[i];
    if (c.rows == 0 || c.width == 0) continue;
    const auto span = [&](const void* base, std::int64_t ld) {
      const auto first = reinterpret_cast<std::uintptr_t>(base);
      const auto elements = (c.rows - 1) * ld + c.width;
      return Range{first, first + static_cast<std::uintptr_t>(elements) * c.element_bytes, i};
    };
    reads.push_back(span(c.src, c.src_ld));
    writes.push_back(span(c.dst, c.dst_ld));
    const bool dense = c.rows == 1 || (c.dst_ld == c.width && c.src_ld == c.width);
    if (!dense) {
      strided_.push_back(c);
      continue;
    }
    const auto bytes = static_cast<std::size_t>(c.rows * c.width) * c.element_bytes;
    auto batch = std::find_if(batches_.begin(), batches_.end(),
                              [&](const Batch& b) { return b.bytes == bytes; });
    if (batch == batches_.end()) batch = batches_.insert(batches_.end(), Batch{bytes, {}, {}});
    batch->dst.push_back(c.dst);
    batch->src.push_back(c.src);
  }
  // No copy may read what a copy writes: sweep the reads and the writes, both sorted by start.
  // A write taken in for an earlier read started before that read ended; if it also ends after
  // the current read starts, it overlaps the earlier read (reads are sorted by start), so the
  // largest end seen so far decides.
  const auto by_first = [](const Range& x, const Range& y) { return x.first < y.first; };
  std::sort(reads.begin(), reads.end(), by_first);
  std::sort(writes.begin(), writes.end(), by_first);
  std::size_t w = 0;
  std::uintptr_t write_end = 0;
  std::size_t write_copy = 0;
  for (const Range& r : reads) {
    for (; w < writes.size() && writes[w].first < r.end; ++w) {
      if (writes[w].end > write_end) {
        write_end = writes[w].end;
        write_copy = writes[w].copy;
      }
    }
    if (write_end > r.first) {
      throw Error(fmt::format(
          "executor: copy {} of a phase reads bytes that copy {} of the same phase writes; the "
          "phase's copies would depend on their order",
          r.copy, write_copy));
    }
  }
  prepared_ = true;
}

void CopyList::run(backend::Backend& backend) {
  if (!prepared_) prepare();
  for (const Batch& b : batches_) {
    backend.copy(std::span<void* const>(b.dst), std::span<const void* const>(b.src), b.bytes);
  }
  for (const Copy& c : strided_) {
    backend.copy_2d(c.dst, static_cast<std::size_t>(c.dst_ld) * c.element_bytes, c.src,
                    static_cast<std::size_t>(c.src_ld) * c.element_bytes,
                    static_cast<std::size_t>(c.width) * c.element_bytes,
                    static_cast<std::size_t>(c.rows));
  }
}

}  // namespace canzona::exec::detail
