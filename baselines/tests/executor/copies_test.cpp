// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shard ↔ fragment copy maps (no MPI): assembling the fragments from TP shards cut the
// Megatron way gives the full matrix's fragments, for column-parallel (fused fc1 and qkv,
// split or not) and row-parallel matrices; copy lists; the cpu backend's copy_2d;
// trace_mismatch.
#include "copies.hpp"  // lib/exec/src: the copy maps under test

#include <canzona/backend/cpu_backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/core/error.hpp>
#include <canzona/exec/trace_check.hpp>

#include "exec_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <numeric>
#include <vector>

namespace {

namespace et = canzona::exec::testing;
namespace detail = canzona::exec::detail;
namespace plan = canzona::plan;

// For every matrix of a plan at tp: shards built from Megatron's sharding (reference_index),
// assembled through shard_blocks, equal the tp = 1 fragments of the full matrix; writing the
// fragments back reproduces the shards.
void expect_round_trip(const plan::StrategyOptions& options, int tp) {
  const canzona::model::ModelSpec model = et::tiny_qwen3();
  const plan::StepPlan p = canzona::baselines::make_step_plan(model, {1, tp, 8}, options);
  auto be = canzona::backend::make_cpu_backend();
  for (const plan::MatrixPlan& m : p.matrices) {
    SCOPED_TRACE(m.name);
    const auto& param = p.layout.params[m.param_index];
    std::vector<float> full(static_cast<std::size_t>(m.full.rows * m.full.cols));
    std::iota(full.begin(), full.end(), 0.0f);
    const int parts = m.sharded() ? tp : 1;
    const std::vector<std::int64_t> local_shape = {m.local.rows, m.local.cols};
    std::vector<std::vector<float>> shards(static_cast<std::size_t>(parts));
    for (int t = 0; t < parts; ++t) {
      for (std::int64_t i : et::reference_index(param, local_shape, parts, t)) {
        shards[static_cast<std::size_t>(t)].push_back(full[static_cast<std::size_t>(i)]);
      }
    }
    const auto reference_fragments = plan::plan_fragments(param, model, options.split, 1);
    ASSERT_EQ(reference_fragments.size(), m.fragments.size());
    std::vector<std::vector<float>> fragments;
    for (const auto& f : m.fragments) fragments.emplace_back(static_cast<std::size_t>(f.numel()));
    detail::CopyList in;
    detail::CopyList out;
    std::vector<std::vector<float>> written(shards.size());
    for (std::size_t t = 0; t < shards.size(); ++t) written[t].assign(shards[t].size(), -1.0f);
    for (const detail::ShardBlock& b : detail::shard_blocks(m, parts)) {
      const auto t = static_cast<std::size_t>(b.shard);
      in.push_back(detail::to_fragment(b, fragments[b.fragment].data(), shards[t].data()));
      out.push_back(detail::to_shard(b, written[t].data(), fragments[b.fragment].data()));
    }
    in.run(*be);
    out.run(*be);
    for (std::size_t f = 0; f < fragments.size(); ++f) {
      std::vector<float> expected;
      for (const auto& r : reference_fragments[f].rows) {
        expected.insert(expected.end(), full.begin() + r.begin * m.full.cols,
                        full.begin() + r.end * m.full.cols);
      }
      EXPECT_EQ(fragments[f], expected) << m.fragments[f].name;
    }
    EXPECT_EQ(written, shards);
  }
}

TEST(ShardBlocksTest, AssemblesFragmentsOfTheFullMatrixAtEveryTpDegree) {
  for (int tp : {1, 2, 4}) {
    SCOPED_TRACE(tp);
    expect_round_trip(plan::StrategyOptions{}, tp);
  }
}

TEST(ShardBlocksTest, SplitQkvPerHeadAndFc1FragmentsComeFromTheRightShards) {
  plan::StrategyOptions options;
  options.split.qkv = true;
  options.split.qkv_per_head = true;
  options.split.fc1 = true;
  for (int tp : {1, 2, 4}) {
    SCOPED_TRACE(tp);
    expect_round_trip(options, tp);
  }
}

// Dense copies of one size are one batched operation, each strided rectangle one copy_2d, in
// any order the list was built in; a list whose copies read what another writes is refused.
TEST(CopyListTest, DenseCopiesOfASizeAreOneOperationAndOrderDependenceIsRefused) {
  auto be = canzona::backend::make_cpu_backend();
  std::vector<float> src(40);
  std::iota(src.begin(), src.end(), 0.0f);
  std::vector<float> dst(40, -1.0f);
  detail::CopyList list;
  list.push_back(detail::contiguous(dst.data() + 0, src.data() + 30, 4));
  list.push_back(detail::contiguous(dst.data() + 4, src.data() + 20, 6));
  list.push_back(detail::contiguous(dst.data() + 10, src.data() + 0, 4));
  list.push_back(detail::contiguous(dst.data() + 14, src.data() + 10, 6));
  // Columns 1..2 of the 3x4 matrix at src + 4 into a 3x2 block at dst + 30.
  list.push_back(detail::Copy{dst.data() + 30, src.data() + 5, 3, 2, 2, 4, sizeof(float)});
  const canzona::backend::OpCounts before = be->op_counts();
  list.run(*be);
  EXPECT_EQ((be->op_counts() - before).operations, 3U) << "sizes 4 and 6, one rectangle";
  std::vector<float> want(40, -1.0f);
  std::iota(want.begin() + 0, want.begin() + 4, 30.0f);
  std::iota(want.begin() + 4, want.begin() + 10, 20.0f);
  std::iota(want.begin() + 10, want.begin() + 14, 0.0f);
  std::iota(want.begin() + 14, want.begin() + 20, 10.0f);
  const float block[] = {5, 6, 9, 10, 13, 14};
  std::copy(std::begin(block), std::end(block), want.begin() + 30);
  EXPECT_EQ(dst, want);

  // The second copy reads what the first writes: replaying them in any order is wrong.
  detail::CopyList chained;
  chained.push_back(detail::contiguous(dst.data(), src.data(), 4));
  chained.push_back(detail::contiguous(dst.data() + 20, dst.data() + 2, 4));
  EXPECT_THROW(chained.run(*be), canzona::Error);
}

TEST(CpuBackendCopy2dTest, MovesAColumnBlockAndRejectsShortPitches) {
  auto be = canzona::backend::make_cpu_backend();
  std::vector<float> src(3 * 5);
  std::iota(src.begin(), src.end(), 0.0f);
  std::vector<float> dst(3 * 2, -1.0f);
  // Columns 2..3 of a 3x5 matrix into a 3x2 one.
  be->copy_2d(dst.data(), 2 * sizeof(float), src.data() + 2, 5 * sizeof(float), 2 * sizeof(float),
              3);
  EXPECT_EQ(dst, (std::vector<float>{2, 3, 7, 8, 12, 13}));
  EXPECT_THROW(
      be->copy_2d(dst.data(), sizeof(float), src.data(), 5 * sizeof(float), 2 * sizeof(float), 3),
      canzona::Error);
}

TEST(TraceMismatchTest, NamesTheGroupAndTheMissingCollectives) {
  const plan::StepPlan p =
      canzona::baselines::make_step_plan(et::tiny_qwen3(), {2, 2, 8}, plan::StrategyOptions{});
  const std::string mismatch = canzona::exec::trace_mismatch(p, 0, 0, {}, {});
  EXPECT_NE(mismatch.find("dp group"), std::string::npos) << mismatch;
  EXPECT_NE(mismatch.find("executor issued 0"), std::string::npos) << mismatch;
}

}  // namespace
