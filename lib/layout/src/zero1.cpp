// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron ZeRO-1 buffer construction (param_and_grad_buffer.py, distributed optimizer on) and
// the per-rank views of it.
#include "canzona/layout/zero1.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "canzona/layout/tp_shapes.hpp"

namespace canzona::layout {
namespace {

std::int64_t round_up(std::int64_t value, std::int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Packs `indices` (model order) into one buffer. Mirrors _ParamAndGradBuffer.__init__: the loop
// runs over params[::-1] and pads param starts and bucket ends.
Buffer pack(std::string name, const std::vector<std::size_t>& indices,
            const std::vector<model::ParamSpec>& params, const model::ModelSpec& model,
            const ParallelConfig& config, std::int64_t bucket_size, std::int64_t alignment) {
  Buffer buffer;
  buffer.name = std::move(name);
  buffer.dp = config.dp;
  buffer.entries.reserve(indices.size());

  std::int64_t bucket_start = 0;
  std::int64_t cursor = 0;
  std::size_t first_entry = 0;
  auto close_bucket = [&](std::int64_t data_end) {
    Bucket b;
    b.index = static_cast<int>(buffer.buckets.size());
    b.start = bucket_start;
    b.data_end = data_end;
    b.end = round_up(data_end, alignment);
    b.first_entry = first_entry;
    b.last_entry = buffer.entries.size() - 1;
    b.dp = config.dp;
    buffer.buckets.push_back(b);
    bucket_start = b.end;
    first_entry = buffer.entries.size();
    return b.end;
  };

  for (auto it = indices.rbegin(); it != indices.rend(); ++it) {
    const model::ParamSpec& p = params[*it];
    BufferEntry e;
    e.param_index = *it;
    e.name = p.name;
    e.shape = tp_local_shape(p, model, config.tp);
    e.matrix = p.uses_matrix_optimizer();
    e.start = round_up(cursor, kParamAlignment);
    e.end = e.start +
            std::accumulate(e.shape.begin(), e.shape.end(), std::int64_t{1}, std::multiplies<>());
    e.bucket = static_cast<int>(buffer.buckets.size());
    buffer.entries.push_back(e);
    if (e.end - bucket_start >= bucket_size) {
      cursor = close_bucket(e.end);
    } else {
      cursor = e.end;
    }
  }
  if (first_entry < buffer.entries.size()) {
    close_bucket(buffer.entries.back().end);
  }
  buffer.total = buffer.buckets.empty() ? 0 : buffer.buckets.back().end;
  return buffer;
}

}  // namespace

std::int64_t default_bucket_size(int dp) {
  return std::max<std::int64_t>(40'000'000, std::int64_t{1'000'000} * dp);
}

Zero1Options resolved_zero1_options(Zero1Options options, const ParallelConfig& config) {
  if (options.bucket_size == 0) options.bucket_size = default_bucket_size(config.dp);
  return options;
}

std::int64_t bucket_alignment(int dp, bool pad_for_high_nccl_busbw) {
  std::int64_t a = std::lcm(std::int64_t{dp}, std::int64_t{128});
  if (pad_for_high_nccl_busbw) {
    a = std::lcm(a, std::int64_t{1} << 16);
  }
  return a;
}

std::int64_t Buffer::data_numel() const {
  std::int64_t n = 0;
  for (const BufferEntry& e : entries) {
    n += e.numel();
  }
  return n;
}

Zero1Layout build_zero1_layout(const model::ModelSpec& model, const ParallelConfig& config,
                               const Zero1Options& options) {
  validate(config, model);
  if (options.bucket_size < 0) {
    throw ConfigError(fmt::format(
        "bucket_size={} is invalid: use 0 for Megatron's default (max(4e7, 1e6·dp)) or a positive "
        "number of elements",
        options.bucket_size));
  }
  Zero1Layout layout;
  layout.model = model.name;
  layout.config = config;
  layout.options = resolved_zero1_options(options, config);
  layout.params = model::parameters(model, model::ParamLayout::kMegatron);

  // Group indices (model order kept within each group): dense vs expert, matrix vs the rest.
  std::vector<std::size_t> groups[4];  // dense matrix, dense adamw, expert matrix, expert adamw
  for (std::size_t i = 0; i < layout.params.size(); ++i) {
    const model::ParamSpec& p = layout.params[i];
    const bool expert = p.role == model::ParamRole::kExpert;
    const bool matrix = options.separate_matrix_buffer && p.uses_matrix_optimizer();
    groups[(expert ? 2 : 0) + (matrix ? 0 : 1)].push_back(i);
  }
  const char* names[4];
  if (options.separate_matrix_buffer) {
    names[0] = "matrix";
    names[1] = "adamw";
    names[2] = "expert_matrix";
    names[3] = "expert_adamw";
  } else {
    names[0] = "unused";
    names[1] = "all";
    names[2] = "unused";
    names[3] = "expert";
  }
  const std::int64_t alignment = bucket_alignment(config.dp, options.pad_for_high_nccl_busbw);
  for (int g = 0; g < 4; ++g) {
    if (!groups[g].empty()) {
      layout.buffers.push_back(pack(names[g], groups[g], layout.params, model, config,
                                    layout.options.bucket_size, alignment));
      layout.buffers.back().expert = g >= 2;
    }
  }
  return layout;
}

RankSlice rank_slice(const Bucket& bucket, int rank) {
  CANZONA_CHECK(rank >= 0 && rank < bucket.dp, "rank out of range");
  const std::int64_t s = bucket.shard_size();
  return {rank, bucket.index, bucket.start + rank * s, bucket.start + (rank + 1) * s};
}

RankSpan entry_ranks(const Buffer& buffer, const BufferEntry& entry) {
  const Bucket& b = buffer.buckets.at(static_cast<std::size_t>(entry.bucket));
  const std::int64_t s = b.shard_size();
  return {static_cast<int>((entry.start - b.start) / s),
          static_cast<int>((entry.end - 1 - b.start) / s)};
}

std::vector<RankShard> rank_shards(const Buffer& buffer) {
  std::vector<RankShard> shards(static_cast<std::size_t>(buffer.dp));
  for (int r = 0; r < buffer.dp; ++r) {
    shards[static_cast<std::size_t>(r)].rank = r;
  }
  for (const Bucket& b : buffer.buckets) {
    for (int r = 0; r < buffer.dp; ++r) {
      shards[static_cast<std::size_t>(r)].owned += b.shard_size();
    }
    for (std::size_t i = b.first_entry; i <= b.last_entry; ++i) {
      const BufferEntry& e = buffer.entries[i];
      const RankSpan span = entry_ranks(buffer, e);
      for (int r = span.first; r <= span.last; ++r) {
        const RankSlice slice = rank_slice(b, r);
        ShardPiece piece;
        piece.entry = i;
        piece.begin = std::max(e.start, slice.begin);
        piece.end = std::min(e.end, slice.end);
        piece.whole = piece.begin == e.start && piece.end == e.end;
        shards[static_cast<std::size_t>(r)].pieces.push_back(piece);
      }
    }
  }
  return shards;
}

std::size_t count_cut_entries(const Buffer& buffer, bool matrices_only) {
  std::size_t n = 0;
  for (const BufferEntry& e : buffer.entries) {
    if ((!matrices_only || e.matrix) && entry_ranks(buffer, e).cut()) {
      ++n;
    }
  }
  return n;
}

}  // namespace canzona::layout
