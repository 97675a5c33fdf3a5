// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "copies.hpp"

#include <canzona/core/error.hpp>
#include <canzona/model/parameters.hpp>

#include <fmt/format.h>

#include <algorithm>

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

void run_copies(backend::Backend& backend, std::span<const Copy> copies) {
  for (const Copy& c : copies) {
    if (c.rows == 0 || c.width == 0) continue;
    const bool dense = c.rows == 1 || (c.dst_ld == c.width && c.src_ld == c.width);
    if (dense) {
      backend.copy(c.dst, c.src, static_cast<std::size_t>(c.rows * c.width) * c.element_bytes);
    } else {
      backend.copy_2d(c.dst, static_cast<std::size_t>(c.dst_ld) * c.element_bytes, c.src,
                      static_cast<std::size_t>(c.src_ld) * c.element_bytes,
                      static_cast<std::size_t>(c.width) * c.element_bytes,
                      static_cast<std::size_t>(c.rows));
    }
  }
}

}  // namespace canzona::exec::detail
