// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Fused-matrix splits: explicit row ranges on tiny models, exact tiling on the catalog, and the
// TP de-interleave checked by assembling labelled TP shards the way Megatron stores them.
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/model/parameters.hpp>
#include <canzona/model/split.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace canzona::model {
namespace {

ModelSpec tiny(std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim, std::int64_t ffn) {
  ModelSpec m;
  m.name = "tiny";
  m.display_name = "tiny";
  m.hidden_size = 3;
  m.intermediate_size = ffn;
  m.num_layers = 1;
  m.num_heads = heads;
  m.num_kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.vocab_size = 10;
  return m;
}

const ParamSpec& find(const std::vector<ParamSpec>& params, const std::string& suffix) {
  for (const ParamSpec& p : params) {
    if (p.name.size() >= suffix.size() &&
        p.name.compare(p.name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return p;
    }
  }
  throw std::runtime_error("no param ending in " + suffix);
}

using Ranges = std::vector<RowRange>;

// Gathers `rows` of `matrix` (one label per row).
std::vector<std::int64_t> gather(const std::vector<std::int64_t>& matrix, const Ranges& rows) {
  std::vector<std::int64_t> out;
  for (const RowRange& r : rows) {
    for (std::int64_t i = r.begin; i < r.end; ++i) {
      out.push_back(matrix.at(static_cast<std::size_t>(i)));
    }
  }
  return out;
}

// Every row of [0, rows) appears in exactly one fragment.
void expect_tiles(const std::vector<Fragment>& fragments, std::int64_t rows) {
  std::vector<int> seen(static_cast<std::size_t>(rows), 0);
  std::int64_t numel = 0;
  for (const Fragment& f : fragments) {
    std::int64_t fragment_rows = 0;
    for (const RowRange& r : f.rows) {
      ASSERT_LE(0, r.begin);
      ASSERT_LT(r.begin, r.end);
      ASSERT_LE(r.end, rows);
      for (std::int64_t i = r.begin; i < r.end; ++i) {
        ++seen[static_cast<std::size_t>(i)];
      }
      fragment_rows += r.size();
    }
    EXPECT_EQ(fragment_rows, f.shape.at(0)) << f.name;
    numel += f.numel();
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    EXPECT_EQ(seen[static_cast<std::size_t>(i)], 1) << "row " << i;
  }
  EXPECT_EQ(numel, rows * fragments.at(0).shape.at(1));
}

TEST(SplitTest, QkvRowsAreGroupedPerKvGroup) {
  // H=4, K=2, d=2: group rows = (2 + 2)·2 = 8; [q0 q1 k0 v0 | q2 q3 k1 v1].
  const ModelSpec m = tiny(4, 2, 2, 6);
  const auto params = parameters(m, ParamLayout::kMegatron);
  const ParamSpec& qkv = find(params, "linear_qkv.weight");
  ASSERT_EQ(qkv.shape, (std::vector<std::int64_t>{16, 3}));

  const auto qkv3 = split_qkv(qkv, m, /*per_head=*/false);
  ASSERT_EQ(qkv3.size(), 3U);
  EXPECT_EQ(qkv3[0].name, "decoder.layers.0.self_attention.linear_qkv.weight.q");
  EXPECT_EQ(qkv3[0].kind, FragmentKind::kQuery);
  EXPECT_EQ(qkv3[0].shape, (std::vector<std::int64_t>{8, 3}));
  EXPECT_EQ(qkv3[0].rows, (Ranges{{0, 4}, {8, 12}}));
  EXPECT_EQ(qkv3[1].shape, (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(qkv3[1].rows, (Ranges{{4, 6}, {12, 14}}));
  EXPECT_EQ(qkv3[2].rows, (Ranges{{6, 8}, {14, 16}}));
  expect_tiles(qkv3, 16);

  const auto heads = split_qkv(qkv, m, /*per_head=*/true);
  ASSERT_EQ(heads.size(), 8U);  // 4 q heads, 2 k groups, 2 v groups
  const Ranges expected[] = {{{0, 2}}, {{2, 4}},   {{8, 10}}, {{10, 12}},
                             {{4, 6}}, {{12, 14}}, {{6, 8}},  {{14, 16}}};
  const char* names[] = {".q.head0",  ".q.head1",  ".q.head2",  ".q.head3",
                         ".k.group0", ".k.group1", ".v.group0", ".v.group1"};
  for (std::size_t i = 0; i < heads.size(); ++i) {
    EXPECT_EQ(heads[i].rows, expected[i]) << i;
    EXPECT_EQ(heads[i].name, qkv.name + names[i]);
    EXPECT_EQ(heads[i].shape, (std::vector<std::int64_t>{2, 3}));
  }
  EXPECT_EQ(heads[2].index, 2);
  EXPECT_EQ(heads[5].index, 1);
  EXPECT_EQ(heads[5].kind, FragmentKind::kKey);
  expect_tiles(heads, 16);
}

TEST(SplitTest, Fc1DeinterleavesTpShards) {
  // I=8: full fc1 = [gate 0..7; up 0..7] (16 rows).
  const ModelSpec m = tiny(4, 2, 2, 8);
  const auto params = parameters(m, ParamLayout::kMegatron);
  const ParamSpec& fc1 = find(params, "mlp.linear_fc1.weight");
  struct Case {
    int tp;
    Ranges gate, up;
  };
  const Case cases[] = {
      {1, {{0, 8}}, {{8, 16}}},
      {2, {{0, 4}, {8, 12}}, {{4, 8}, {12, 16}}},
      {4, {{0, 2}, {4, 6}, {8, 10}, {12, 14}}, {{2, 4}, {6, 8}, {10, 12}, {14, 16}}},
      {8,
       {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}},
       {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}, {15, 16}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("tp=" + std::to_string(c.tp));
    const auto f = split_fc1(fc1, m, c.tp);
    ASSERT_EQ(f.size(), 2U);
    EXPECT_EQ(f[0].kind, FragmentKind::kGate);
    EXPECT_EQ(f[0].rows, c.gate);
    EXPECT_EQ(f[1].kind, FragmentKind::kUp);
    EXPECT_EQ(f[1].rows, c.up);
    EXPECT_EQ(f[0].shape, (std::vector<std::int64_t>{8, 3}));
    expect_tiles(f, 16);
  }
}

// Full fc1 rows labelled 0..2I-1 (gate i = i, up i = I + i); Megatron's column-parallel shard r
// holds [gate rows of r; up rows of r]; the gathered matrix concatenates the shards.
TEST(SplitTest, Fc1FragmentsOfGatheredShardsAreGateAndUp) {
  for (const char* name : {"qwen3-0.6b", "qwen3-8b", "qwen3-30b-a3b"}) {
    const ModelSpec& m = find_model(name);
    const auto params = parameters(m, ParamLayout::kMegatron);
    const ParamSpec& fc1 = find(params, m.is_moe() ? "linear_fc1.weight3" : "linear_fc1.weight");
    const std::int64_t ffn = m.is_moe() ? m.moe_intermediate_size : m.intermediate_size;
    for (int tp : {1, 2, 4, 8}) {
      SCOPED_TRACE(std::string(name) + " tp=" + std::to_string(tp));
      std::vector<std::int64_t> gathered;
      const std::int64_t local = ffn / tp;
      for (int r = 0; r < tp; ++r) {
        for (std::int64_t i = 0; i < local; ++i) gathered.push_back(r * local + i);
        for (std::int64_t i = 0; i < local; ++i) gathered.push_back(ffn + r * local + i);
      }
      const auto f = split_parameter(fc1, m, SplitOptions{false, false, true}, tp);
      ASSERT_EQ(f.size(), 2U);
      const auto gate = gather(gathered, f[0].rows);
      const auto up = gather(gathered, f[1].rows);
      ASSERT_EQ(static_cast<std::int64_t>(gate.size()), ffn);
      ASSERT_EQ(static_cast<std::int64_t>(up.size()), ffn);
      for (std::int64_t i = 0; i < ffn; ++i) {
        ASSERT_EQ(gate[static_cast<std::size_t>(i)], i);
        ASSERT_EQ(up[static_cast<std::size_t>(i)], ffn + i);
      }
      EXPECT_EQ(f[0].rows.size(), static_cast<std::size_t>(tp));
    }
  }
}

// Labels every row of the full fused qkv as built by Megatron (group-major: q heads, k, v) with
// kind·1e6 + head·1e3 + row-in-head, shards it contiguously along dim 0, gathers the shards, and
// checks each fragment reads back exactly its heads in order.
TEST(SplitTest, QkvFragmentsOfGatheredShardsAreHeadsInOrder) {
  const ModelSpec m = tiny(16, 8, 2, 8);
  const auto params = parameters(m, ParamLayout::kMegatron);
  const ParamSpec& qkv = find(params, "linear_qkv.weight");
  const std::int64_t d = m.head_dim;
  const std::int64_t per_group = m.num_heads / m.num_kv_heads;
  auto label = [](std::int64_t kind, std::int64_t head, std::int64_t row) {
    return kind * 1'000'000 + head * 1'000 + row;
  };
  std::vector<std::int64_t> full;
  for (std::int64_t g = 0; g < m.num_kv_heads; ++g) {
    for (std::int64_t j = 0; j < per_group; ++j) {
      for (std::int64_t r = 0; r < d; ++r) full.push_back(label(0, g * per_group + j, r));
    }
    for (std::int64_t r = 0; r < d; ++r) full.push_back(label(1, g, r));
    for (std::int64_t r = 0; r < d; ++r) full.push_back(label(2, g, r));
  }
  ASSERT_EQ(static_cast<std::int64_t>(full.size()), qkv.shape[0]);
  for (int tp : {1, 2, 4, 8}) {
    SCOPED_TRACE("tp=" + std::to_string(tp));
    // Megatron's dim-0 shard r is rows [r·n/tp, (r+1)·n/tp) of the full matrix.
    std::vector<std::int64_t> gathered;
    const std::size_t shard = full.size() / static_cast<std::size_t>(tp);
    for (int r = 0; r < tp; ++r) {
      gathered.insert(gathered.end(), full.begin() + static_cast<std::ptrdiff_t>(r * shard),
                      full.begin() + static_cast<std::ptrdiff_t>((r + 1) * shard));
    }
    const auto three = split_qkv(qkv, m, false, tp);
    const std::int64_t counts[] = {m.num_heads, m.num_kv_heads, m.num_kv_heads};
    for (std::size_t k = 0; k < 3; ++k) {
      const auto rows = gather(gathered, three[k].rows);
      ASSERT_EQ(static_cast<std::int64_t>(rows.size()), counts[k] * d);
      for (std::int64_t h = 0; h < counts[k]; ++h) {
        for (std::int64_t r = 0; r < d; ++r) {
          ASSERT_EQ(rows[static_cast<std::size_t>(h * d + r)],
                    label(static_cast<std::int64_t>(k), h, r));
        }
      }
    }
    const auto heads = split_qkv(qkv, m, true, tp);
    ASSERT_EQ(heads.size(), 32U);
    for (const Fragment& f : heads) {
      const std::int64_t kind = f.kind == FragmentKind::kQuery ? 0
                                : f.kind == FragmentKind::kKey ? 1
                                                               : 2;
      const auto rows = gather(gathered, f.rows);
      ASSERT_EQ(static_cast<std::int64_t>(rows.size()), d);
      for (std::int64_t r = 0; r < d; ++r) {
        ASSERT_EQ(rows[static_cast<std::size_t>(r)], label(kind, f.index, r)) << f.name;
      }
    }
  }
}

TEST(SplitTest, CatalogFragmentsTileEveryFusedMatrix) {
  for (const ModelSpec& m : catalog()) {
    SCOPED_TRACE(m.name);
    const auto params = parameters(m, ParamLayout::kMegatron);
    const ParamSpec& qkv = find(params, "layers.0.self_attention.linear_qkv.weight");
    const ParamSpec& fc1 = find(params, m.is_moe() ? "layers.0.mlp.experts.linear_fc1.weight0"
                                                   : "layers.0.mlp.linear_fc1.weight");
    for (int tp : {1, 2, 4}) {
      const auto heads = split_qkv(qkv, m, true, tp);
      EXPECT_EQ(static_cast<std::int64_t>(heads.size()), m.num_heads + 2 * m.num_kv_heads);
      for (const Fragment& f : heads) {
        EXPECT_EQ(f.shape, (std::vector<std::int64_t>{128, m.hidden_size}));
      }
      expect_tiles(heads, qkv.shape[0]);
      const auto three = split_qkv(qkv, m, false, tp);
      EXPECT_EQ(three[0].shape, (std::vector<std::int64_t>{m.q_rows(), m.hidden_size}));
      EXPECT_EQ(three[1].shape, (std::vector<std::int64_t>{m.kv_rows(), m.hidden_size}));
      expect_tiles(three, qkv.shape[0]);
      expect_tiles(split_fc1(fc1, m, tp), fc1.shape[0]);
    }
  }
}

TEST(SplitTest, Qwen3_32BFragmentCounts) {
  const ModelSpec& m = find_model("qwen3-32b");
  const auto params = parameters(m, ParamLayout::kMegatron);
  const auto all = matrix_fragments(params, m, SplitOptions{true, true, true});
  // Per layer: 64 q heads + 8 k + 8 v, linear_proj, gate, up, linear_fc2.
  EXPECT_EQ(all.size(), 64U * 84U);
  std::int64_t numel = 0;
  for (const Fragment& f : all) numel += f.numel();
  EXPECT_EQ(numel, 31'205'621'760);
  EXPECT_EQ(matrix_fragments(params, m, SplitOptions{}).size(), 256U);
  EXPECT_EQ(matrix_fragments(params, m, SplitOptions{true, false, true}).size(), 64U * 7U);
}

TEST(SplitTest, ImpossibleSplitsAreConfigErrors) {
  const ModelSpec& m = find_model("qwen3-8b");
  const auto meg = parameters(m, ParamLayout::kMegatron);
  const auto hf = parameters(m, ParamLayout::kHuggingFace);
  const ParamSpec& fc1 = find(meg, "layers.0.mlp.linear_fc1.weight");
  const ParamSpec& qkv = find(meg, "layers.0.self_attention.linear_qkv.weight");
  const ParamSpec& norm = find(meg, "layers.0.self_attention.q_layernorm.weight");
  const ParamSpec& q_proj = find(hf, "layers.0.self_attn.q_proj.weight");
  const ParamSpec& emb = find(meg, "word_embeddings.weight");

  EXPECT_THROW(split_qkv(fc1, m, /*per_head=*/true), ConfigError);
  EXPECT_THROW(split_qkv(q_proj, m, false), ConfigError);
  EXPECT_THROW(split_fc1(qkv, m), ConfigError);
  EXPECT_THROW(split_qkv(qkv, m, false, /*tp=*/3), ConfigError);  // 3 does not divide K = 8
  EXPECT_THROW(split_qkv(qkv, m, false, /*tp=*/16), ConfigError);
  EXPECT_THROW(split_fc1(fc1, m, /*tp=*/0), ConfigError);
  EXPECT_THROW(split_qkv(qkv, find_model("qwen3-32b"), false), ConfigError);  // wrong model
  EXPECT_THROW(split_parameter(norm, m, SplitOptions{true, true, true}), ConfigError);
  EXPECT_THROW(split_parameter(emb, m, SplitOptions{}), ConfigError);
  EXPECT_THROW(split_parameter(qkv, m, SplitOptions{false, true, false}), ConfigError);
  try {
    split_qkv(fc1, m, true);
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("linear_fc1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("per head"), std::string::npos) << e.what();
  }
}

TEST(SplitTest, UnsplitParamsGiveOneWholeFragment) {
  const ModelSpec& m = find_model("qwen3-8b");
  const auto meg = parameters(m, ParamLayout::kMegatron);
  const ParamSpec& proj = find(meg, "layers.0.self_attention.linear_proj.weight");
  const ParamSpec& fc1 = find(meg, "layers.0.mlp.linear_fc1.weight");
  const auto p = split_parameter(proj, m, SplitOptions{true, true, true});
  ASSERT_EQ(p.size(), 1U);
  EXPECT_EQ(p[0].kind, FragmentKind::kWhole);
  EXPECT_EQ(p[0].name, proj.name);
  EXPECT_EQ(p[0].rows, (Ranges{{0, 4096}}));
  const auto f = split_parameter(fc1, m, SplitOptions{true, false, false}, 4);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_EQ(f[0].shape, (std::vector<std::int64_t>{24576, 4096}));
}

}  // namespace
}  // namespace canzona::model
