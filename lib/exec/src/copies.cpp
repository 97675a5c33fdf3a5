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

Copy to_fragment(const ShardBlock& b, float* fragment, const float* shard) {
  return Copy{fragment + b.fragment_offset,
              shard + b.shard_offset,
              b.rows,
              b.width,
              b.fragment_ld,
              b.shard_ld};
}

Copy to_shard(const ShardBlock& b, float* shard, const float* fragment) {
  return Copy{shard + b.shard_offset, fragment + b.fragment_offset, b.rows, b.width, b.shard_ld,
              b.fragment_ld};
}

Copy contiguous(float* dst, const float* src, std::int64_t count) {
  return Copy{dst, src, 1, count, count, count};
}

void run_copies(backend::Backend& backend, std::span<const Copy> copies) {
  for (const Copy& c : copies) {
    if (c.rows == 0 || c.width == 0) continue;
    const bool dense = c.rows == 1 || (c.dst_ld == c.width && c.src_ld == c.width);
    if (dense) {
      backend.copy(c.dst, c.src, static_cast<std::size_t>(c.rows * c.width) * sizeof(float));
    } else {
      backend.copy_2d(c.dst, static_cast<std::size_t>(c.dst_ld) * sizeof(float), c.src,
                      static_cast<std::size_t>(c.src_ld) * sizeof(float),
                      static_cast<std::size_t>(c.width) * sizeof(float),
                      static_cast<std::size_t>(c.rows));
    }
  }
}

}  // namespace canzona::exec::detail
