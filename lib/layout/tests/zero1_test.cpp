// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Megatron ZeRO-1 buffers: a hand-computed layout, the packing / bucketing / slicing rules
// checked as properties on catalog models and on random tiny models (seed printed).
#include <canzona/core/error.hpp>
#include <canzona/layout/tp_shapes.hpp>
#include <canzona/layout/zero1.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/testing/seed.hpp>
#include "hand_model.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace canzona::layout {
namespace {

using testing::hand_model;

struct Span {
  std::size_t param;
  std::int64_t start, end;
  int bucket;
};

void expect_entries(const Buffer& b, const std::vector<Span>& spans) {
  ASSERT_EQ(b.entries.size(), spans.size()) << b.name;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    SCOPED_TRACE(b.name + " entry " + std::to_string(i));
    EXPECT_EQ(b.entries[i].param_index, spans[i].param);
    EXPECT_EQ(b.entries[i].start, spans[i].start);
    EXPECT_EQ(b.entries[i].end, spans[i].end);
    EXPECT_EQ(b.entries[i].bucket, spans[i].bucket);
  }
}

TEST(Zero1Test, HandComputedLayout) {
  const Zero1Layout layout =
      build_zero1_layout(hand_model(), ParallelConfig{4, 1, 8}, Zero1Options{50, false, true});
  ASSERT_EQ(layout.buffers.size(), 2U);
  const Buffer& matrix = layout.buffers[0];
  EXPECT_EQ(matrix.name, "matrix");
  // Reverse order fc2, fc1, qkv, proj; bucket 0 closes after fc1 (128 − 0 ≥ 50), bucket 1 after
  // proj (208 − 128 ≥ 50), end padded to 256 (lcm(4, 128) = 128).
  expect_entries(matrix, {{8, 0, 32, 0}, {7, 64, 128, 0}, {3, 128, 160, 1}, {1, 192, 208, 1}});
  ASSERT_EQ(matrix.buckets.size(), 2U);
  EXPECT_EQ(matrix.buckets[0].start, 0);
  EXPECT_EQ(matrix.buckets[0].end, 128);
  EXPECT_EQ(matrix.buckets[1].start, 128);
  EXPECT_EQ(matrix.buckets[1].data_end, 208);
  EXPECT_EQ(matrix.buckets[1].end, 256);
  EXPECT_EQ(matrix.buckets[1].shard_size(), 32);
  EXPECT_EQ(matrix.total, 256);
  EXPECT_EQ(matrix.data_numel(), 144);
  EXPECT_EQ(matrix.padding(), 112);
  // fc1 [64, 128) spans ranks 2 and 3 of bucket 0 (shard 32): the one cut matrix.
  EXPECT_EQ(entry_ranks(matrix, matrix.entries[1]).first, 2);
  EXPECT_EQ(entry_ranks(matrix, matrix.entries[1]).last, 3);
  EXPECT_FALSE(entry_ranks(matrix, matrix.entries[3]).cut());
  EXPECT_EQ(entry_ranks(matrix, matrix.entries[3]).first, 2);
  EXPECT_EQ(count_cut_entries(matrix, true), 1U);

  const auto shards = rank_shards(matrix);
  ASSERT_EQ(shards.size(), 4U);
  ASSERT_EQ(shards[0].pieces.size(), 2U);  // fc2 whole, qkv whole
  EXPECT_TRUE(shards[0].pieces[0].whole);
  EXPECT_EQ(shards[0].pieces[1].entry, 2U);
  EXPECT_TRUE(shards[1].pieces.empty());
  ASSERT_EQ(shards[2].pieces.size(), 2U);  // half of fc1, proj whole
  EXPECT_EQ(shards[2].pieces[0].entry, 1U);
  EXPECT_EQ(shards[2].pieces[0].begin, 64);
  EXPECT_EQ(shards[2].pieces[0].end, 96);
  EXPECT_FALSE(shards[2].pieces[0].whole);
  EXPECT_TRUE(shards[2].pieces[1].whole);
  ASSERT_EQ(shards[3].pieces.size(), 1U);
  EXPECT_EQ(shards[3].pieces[0].begin, 96);
  EXPECT_EQ(shards[3].pieces[0].end, 128);
  EXPECT_EQ(shards[3].owned, 64);

  const Buffer& adamw = layout.buffers[1];
  EXPECT_EQ(adamw.name, "adamw");
  // final norm, fc1 norm | k norm, q norm | qkv norm, embedding (128 padded rows × 4).
  expect_entries(adamw, {{9, 0, 4, 0},
                         {6, 64, 68, 0},
                         {5, 128, 130, 1},
                         {4, 192, 194, 1},
                         {2, 256, 260, 2},
                         {0, 320, 832, 2}});
  ASSERT_EQ(adamw.buckets.size(), 3U);
  EXPECT_EQ(adamw.buckets[0].end, 128);
  EXPECT_EQ(adamw.buckets[1].end, 256);
  EXPECT_EQ(adamw.buckets[2].end, 896);
  EXPECT_EQ(adamw.total, 896);
}

TEST(Zero1Test, DefaultsAndAlignment) {
  EXPECT_EQ(default_bucket_size(8), 40'000'000);
  EXPECT_EQ(default_bucket_size(64), 64'000'000);
  EXPECT_EQ(bucket_alignment(32, false), 128);
  EXPECT_EQ(bucket_alignment(48, false), 384);
  EXPECT_EQ(bucket_alignment(3, false), 384);
  EXPECT_EQ(bucket_alignment(3, true), 196'608);
  EXPECT_EQ(bucket_alignment(8, true), 65'536);
  const Zero1Layout layout =
      build_zero1_layout(model::find_model("qwen3-32b"), ParallelConfig{32, 8, 8});
  EXPECT_EQ(layout.options.bucket_size, 40'000'000);
  ASSERT_EQ(layout.buffers.size(), 2U);
  EXPECT_EQ(layout.buffers[0].entries.size(), 256U);
  // 31,205,621,760 matrix elements / tp 8.
  EXPECT_EQ(layout.buffers[0].data_numel(), 3'900'702'720);
  // AdamW: embedding and output layer with padded vocab 152576/8 = 19072 rows, plus norms.
  EXPECT_EQ(layout.buffers[1].data_numel(), 2 * 19072 * 5120 + 64 * (2 * 5120 + 2 * 128) + 5120);
  EXPECT_THROW(build_zero1_layout(model::find_model("qwen3-32b"), ParallelConfig{32, 8, 8},
                                  Zero1Options{-1, false, true}),
               ConfigError);
  EXPECT_THROW(build_zero1_layout(model::find_model("qwen3-32b"), ParallelConfig{32, 3, 8}),
               ConfigError);
}

TEST(Zero1Test, BufferNames) {
  const auto moe = build_zero1_layout(model::find_model("qwen3-30b-a3b"), ParallelConfig{8, 2, 8});
  ASSERT_EQ(moe.buffers.size(), 3U);
  EXPECT_EQ(moe.buffers[0].name, "matrix");
  EXPECT_EQ(moe.buffers[1].name, "adamw");
  EXPECT_EQ(moe.buffers[2].name, "expert_matrix");
  EXPECT_EQ(moe.buffers[2].entries.size(), 48U * 256U);
  const auto one = build_zero1_layout(model::find_model("qwen3-8b"), ParallelConfig{8, 2, 8},
                                      Zero1Options{0, false, false});
  ASSERT_EQ(one.buffers.size(), 1U);
  EXPECT_EQ(one.buffers[0].name, "all");
  const auto moe_one = build_zero1_layout(model::find_model("qwen3-30b-a3b"),
                                          ParallelConfig{8, 2, 8}, Zero1Options{0, false, false});
  ASSERT_EQ(moe_one.buffers.size(), 2U);
  EXPECT_EQ(moe_one.buffers[1].name, "expert");
}

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

// Which params belong in `buffer`, from the documented membership rule.
bool belongs(const Buffer& buffer, const model::ParamSpec& p) {
  const bool expert = p.role == model::ParamRole::kExpert;
  if (buffer.name == "matrix") return !expert && p.uses_matrix_optimizer();
  if (buffer.name == "adamw") return !expert && !p.uses_matrix_optimizer();
  if (buffer.name == "expert_matrix") return expert && p.uses_matrix_optimizer();
  if (buffer.name == "expert_adamw") return expert && !p.uses_matrix_optimizer();
  if (buffer.name == "all") return !expert;
  if (buffer.name == "expert") return expert;
  ADD_FAILURE() << "unexpected buffer " << buffer.name;
  return false;
}

// Every rule of the layout, checked as a property (not by re-running the algorithm).
void check_layout(const Zero1Layout& layout, const model::ModelSpec& m) {
  const int dp = layout.config.dp;
  const std::int64_t bucket_size = layout.options.bucket_size;
  const std::int64_t align = bucket_alignment(dp, layout.options.pad_for_high_nccl_busbw);
  std::vector<int> seen(layout.params.size(), 0);
  for (const Buffer& b : layout.buffers) {
    SCOPED_TRACE("buffer " + b.name);
    ASSERT_FALSE(b.entries.empty());
    ASSERT_FALSE(b.buckets.empty());
    // Reverse model order, exactly the member params.
    std::vector<std::size_t> expected;
    for (std::size_t i = layout.params.size(); i-- > 0;) {
      if (belongs(b, layout.params[i])) expected.push_back(i);
    }
    ASSERT_EQ(b.entries.size(), expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      const BufferEntry& e = b.entries[k];
      ASSERT_EQ(e.param_index, expected[k]);
      ++seen[e.param_index];
      EXPECT_EQ(e.start % kParamAlignment, 0) << e.name;
      EXPECT_EQ(e.numel(), tp_local_numel(layout.params[e.param_index], m, layout.config.tp));
      EXPECT_EQ(e.matrix, layout.params[e.param_index].uses_matrix_optimizer());
    }
    // Buckets tile the buffer; entries pack tightly after 64-alignment.
    std::int64_t expected_start = 0;
    std::size_t expected_first = 0;
    for (const Bucket& bk : b.buckets) {
      SCOPED_TRACE("bucket " + std::to_string(bk.index));
      EXPECT_EQ(bk.start, expected_start);
      EXPECT_EQ(bk.first_entry, expected_first);
      EXPECT_EQ(bk.end % align, 0);
      EXPECT_EQ(bk.size() % dp, 0);
      EXPECT_EQ(bk.data_end, b.entries[bk.last_entry].end);
      EXPECT_EQ(bk.end, round_up(bk.data_end, align));
      const bool last_bucket = bk.index + 1 == static_cast<int>(b.buckets.size());
      for (std::size_t k = bk.first_entry; k <= bk.last_entry; ++k) {
        const BufferEntry& e = b.entries[k];
        EXPECT_EQ(e.bucket, bk.index);
        const std::int64_t previous_end = k == bk.first_entry ? bk.start : b.entries[k - 1].end;
        EXPECT_EQ(e.start, round_up(previous_end, kParamAlignment)) << e.name;
        // The closing rule: the bucket closes right after the first entry reaching bucket_size.
        if (k < bk.last_entry) {
          EXPECT_LT(e.end - bk.start, bucket_size) << e.name;
        } else if (!last_bucket) {
          EXPECT_GE(e.end - bk.start, bucket_size) << e.name;
        }
      }
      // Even, contiguous slices covering the bucket.
      std::int64_t cursor = bk.start;
      for (int r = 0; r < dp; ++r) {
        const RankSlice s = rank_slice(bk, r);
        EXPECT_EQ(s.begin, cursor);
        EXPECT_EQ(s.end - s.begin, bk.shard_size());
        cursor = s.end;
      }
      EXPECT_EQ(cursor, bk.end);
      expected_start = bk.end;
      expected_first = bk.last_entry + 1;
    }
    EXPECT_EQ(expected_first, b.entries.size());
    EXPECT_EQ(b.total, expected_start);
    // Rank shards hold every element of every entry exactly once, inside their own slices.
    std::vector<std::int64_t> held(b.entries.size(), 0);
    std::int64_t owned = 0;
    for (const RankShard& shard : rank_shards(b)) {
      owned += shard.owned;
      for (const ShardPiece& piece : shard.pieces) {
        const BufferEntry& e = b.entries[piece.entry];
        const RankSlice s = rank_slice(b.buckets[static_cast<std::size_t>(e.bucket)], shard.rank);
        EXPECT_LE(s.begin, piece.begin);
        EXPECT_LE(piece.end, s.end);
        EXPECT_LT(piece.begin, piece.end);
        EXPECT_EQ(piece.whole, piece.numel() == e.numel());
        held[piece.entry] += piece.numel();
      }
    }
    EXPECT_EQ(owned, b.total);
    for (std::size_t k = 0; k < b.entries.size(); ++k) {
      EXPECT_EQ(held[k], b.entries[k].numel()) << b.entries[k].name;
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i], 1) << layout.params[i].name;
  }
}

TEST(Zero1Test, CatalogLayoutsSatisfyEveryRule) {
  struct Case {
    const char* model;
    ParallelConfig config;
    Zero1Options options;
  };
  const Case cases[] = {
      {"qwen3-0.6b", {8, 1, 8}, {}},
      {"qwen3-8b", {16, 4, 8}, {10'000'000, false, true}},
      {"qwen3-32b", {32, 8, 8}, {400'000'000, false, true}},
      {"qwen3-32b", {24, 8, 8}, {0, true, false}},
      {"qwen3-14b", {3, 2, 8}, {5'000'000, false, true}},
      {"qwen3-30b-a3b", {8, 4, 8}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.model) + " dp=" + std::to_string(c.config.dp) +
                 " tp=" + std::to_string(c.config.tp));
    const model::ModelSpec& m = model::find_model(c.model);
    check_layout(build_zero1_layout(m, c.config, c.options), m);
  }
}

TEST(Zero1Test, RandomTinyModelsSatisfyEveryRule) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + " (set CANZONA_TEST_SEED to reproduce)");
  std::mt19937_64 rng(seed);
  auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int iteration = 0; iteration < 60; ++iteration) {
    model::ModelSpec m;
    m.name = "random";
    m.num_kv_heads = std::int64_t{1} << draw(0, 2);
    m.num_heads = m.num_kv_heads * draw(1, 3);
    m.head_dim = std::int64_t{2} << draw(0, 3);
    m.hidden_size = 8 * draw(1, 12);
    m.intermediate_size = 8 * draw(1, 32);
    m.num_layers = draw(1, 4);
    m.vocab_size = draw(10, 3000);
    m.tie_word_embeddings = draw(0, 1) == 1;
    if (draw(0, 2) == 0) {
      m.num_experts = draw(2, 6);
      m.moe_intermediate_size = 8 * draw(1, 8);
      m.experts_per_token = draw(1, m.num_experts);
    }
    const std::vector<int> tps = valid_tp_values(m, 8);
    ParallelConfig config;
    config.tp = tps[static_cast<std::size_t>(draw(0, static_cast<std::int64_t>(tps.size()) - 1))];
    config.dp = static_cast<int>(draw(1, 12));
    Zero1Options options;
    options.bucket_size = draw(1, m.total_params() / config.tp / 2 + 1);
    options.pad_for_high_nccl_busbw = draw(0, 4) == 0;
    options.separate_matrix_buffer = draw(0, 1) == 1;
    SCOPED_TRACE("iteration " + std::to_string(iteration) + ": h=" + std::to_string(m.hidden_size) +
                 " heads=" + std::to_string(m.num_heads) + "/" + std::to_string(m.num_kv_heads) +
                 " experts=" + std::to_string(m.num_experts) + " dp=" + std::to_string(config.dp) +
                 " tp=" + std::to_string(config.tp) +
                 " bucket=" + std::to_string(options.bucket_size));
    const Zero1Layout layout = build_zero1_layout(m, config, options);
    check_layout(layout, m);
    if (::testing::Test::HasFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace canzona::layout
