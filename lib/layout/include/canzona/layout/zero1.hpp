// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron's ZeRO-1 (distributed optimizer) grad/param buffer for one TP rank: reverse-order
// packing, 64-element param alignment, buckets, bucket padding, and the even per-rank slices
// that cut matrices apart, which is the problem Canzona solves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <canzona/model/parameters.hpp>
#include <canzona/model/spec.hpp>

#include "canzona/layout/parallel_config.hpp"

namespace canzona::layout {

/// Megatron's parameter-start alignment in the distributed-optimizer buffer, in elements.
inline constexpr std::int64_t kParamAlignment = 64;

/// How the buffer is built. Sizes are in elements.
struct Zero1Options {
  /// Bucket threshold; 0 = Megatron's default max(40'000'000, 1'000'000·dp). Canzona's training
  /// script uses 400'000'000. A value larger than the buffer gives one bucket (Megatron's
  /// behaviour without --overlap-grad-reduce).
  std::int64_t bucket_size = 0;
  /// Megatron's pad_buckets_for_high_nccl_busbw: bucket ends aligned to lcm(dp, 128, 65536).
  bool pad_for_high_nccl_busbw = false;
  /// Canzona: matrix-optimizer params in their own buffer ("matrix"), the rest in another
  /// ("adamw"); false = one buffer ("all") as in plain Megatron.
  bool separate_matrix_buffer = true;
};

/// Megatron's default bucket size for `dp` ranks: max(40'000'000, 1'000'000·dp).
std::int64_t default_bucket_size(int dp);

/// The options a layout for `config` is built with: a bucket_size of 0 becomes
/// default_bucket_size(dp). What Zero1Layout::options holds.
Zero1Options resolved_zero1_options(Zero1Options options, const ParallelConfig& config);

/// Alignment of every bucket end: lcm(dp, 128), or lcm(dp, 128, 65536) with high-busbw padding.
std::int64_t bucket_alignment(int dp, bool pad_for_high_nccl_busbw);

/// One parameter's place in a buffer, [start, end) in elements of the buffer.
struct BufferEntry {
  std::size_t param_index = 0;  ///< index into Zero1Layout::params (model order)
  std::string name;
  std::vector<std::int64_t> shape;  ///< TP-local shape
  bool matrix = false;              ///< uses the matrix optimizer
  std::int64_t start = 0;           ///< multiple of kParamAlignment
  std::int64_t end = 0;
  int bucket = 0;
  std::int64_t numel() const { return end - start; }
};

/// A contiguous range of the buffer reduce-scattered / all-gathered as one collective.
struct Bucket {
  int index = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;         ///< padded: a multiple of bucket_alignment()
  std::int64_t data_end = 0;    ///< end of its last param; [data_end, end) is padding
  std::size_t first_entry = 0;  ///< entries [first_entry, last_entry] are in this bucket
  std::size_t last_entry = 0;
  int dp = 1;
  std::int64_t size() const { return end - start; }
  /// Elements each DP rank owns: size() / dp (exact by construction).
  std::int64_t shard_size() const { return size() / dp; }
  std::size_t num_entries() const { return last_entry - first_entry + 1; }
};

/// One contiguous grad/param buffer: its params in reverse model order, and its buckets.
struct Buffer {
  std::string name;  ///< "matrix", "adamw", "all"; MoE adds "expert_matrix" / "expert"
  std::vector<BufferEntry> entries;
  std::vector<Bucket> buckets;
  std::int64_t total = 0;  ///< buffer size = end of the last bucket
  int dp = 1;
  /// Holds expert-parallel parameters ("expert_matrix", "expert_adamw", "expert"), which
  /// Megatron reduces over the expert-DP group (equal to DP here) and keeps apart from the
  /// dense ones.
  bool expert = false;
  /// Sum of entry sizes (no padding).
  std::int64_t data_numel() const;
  /// total - data_numel(): alignment gaps plus bucket-end padding.
  std::int64_t padding() const { return total - data_numel(); }
};

/// The layout every TP rank of a job sees (TP ranks hold the same shapes, so their layouts are
/// identical).
struct Zero1Layout {
  std::string model;  ///< ModelSpec::name
  ParallelConfig config;
  Zero1Options options;                  ///< bucket_size resolved (never 0)
  std::vector<model::ParamSpec> params;  ///< Megatron layout, model order, FULL shapes
  std::vector<Buffer> buffers;
};

/// Builds the buffers the way Megatron's _ParamAndGradBuffer does (distributed optimizer on):
///  - buffers: dense params first, then expert params (Megatron keeps expert-parallel params in
///    their own buffers, reduced over the expert-DP group; without EP that group equals DP);
///    each split into "matrix" / "adamw" when options.separate_matrix_buffer, else one buffer;
///    empty buffers are dropped;
///  - params in REVERSE model order, each start rounded up to a multiple of 64;
///  - a bucket closes right after the first param with end − bucket_start ≥ bucket_size; its end
///    is rounded up to bucket_alignment(); the next param starts there; the last bucket closes
///    after the last param;
///  - rank r owns [start + r·S, start + (r+1)·S) of each bucket, S = bucket.size() / dp.
/// Deviation: Megatron gives the shared embedding its own bucket only with pipeline parallelism
/// (the embedding and the output layer then live on different stages); there is no pipeline
/// parallelism here, so no param forces a new bucket.
/// Validates `config` against `model` (ConfigError), and bucket_size >= 0.
Zero1Layout build_zero1_layout(const model::ModelSpec& model, const ParallelConfig& config,
                               const Zero1Options& options = {});

/// The elements [begin, end) of the buffer that DP rank `rank` owns in `bucket`.
struct RankSlice {
  int rank = 0;
  int bucket = 0;
  std::int64_t begin = 0;
  std::int64_t end = 0;
};

/// Rank `rank`'s slice of `bucket`.
RankSlice rank_slice(const Bucket& bucket, int rank);

/// The DP ranks whose slices an entry overlaps: [first, last].
struct RankSpan {
  int first = 0;
  int last = 0;
  /// True when more than one rank holds part of the entry (the entry is cut).
  bool cut() const { return first != last; }
};

/// Ranks of `buffer` whose slices overlap `entry`.
RankSpan entry_ranks(const Buffer& buffer, const BufferEntry& entry);

/// The part of one entry a rank owns: buffer elements [begin, end), which are elements
/// [begin − entry.start, end − entry.start) of the flattened TP-local param.
struct ShardPiece {
  std::size_t entry = 0;  ///< index into Buffer::entries
  std::int64_t begin = 0;
  std::int64_t end = 0;
  bool whole = false;  ///< the rank owns the entire entry
  std::int64_t numel() const { return end - begin; }
};

/// Everything one DP rank owns of a buffer, over all buckets, in buffer order.
struct RankShard {
  int rank = 0;
  std::vector<ShardPiece> pieces;
  std::int64_t owned = 0;  ///< elements of its slices, padding included
};

/// For each DP rank, which entries (fully or partially) its even slices hold. This is what
/// makes ZeRO-1 element-wise: a matrix whose [start, end) crosses a slice boundary is split
/// between ranks, and no rank can run a matrix optimizer on it alone.
std::vector<RankShard> rank_shards(const Buffer& buffer);

/// Number of entries of `buffer` cut across ranks (matrices only when `matrices_only`).
std::size_t count_cut_entries(const Buffer& buffer, bool matrices_only);

}  // namespace canzona::layout
