// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The libtorch Qwen3 model with tensor parallelism over MPI (tp = number of ranks) against the
// single-process model each rank also runs: logits, loss and every gradient shard, in fp64 and
// fp32; the all-reduces Megatron issues and no others; start-up failures on one rank stop all.
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/core/error.hpp>
#include <canzona/testing/seed.hpp>
#include <canzona/torch_model/qwen3.hpp>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "torch_test_support.hpp"

namespace {

namespace tm = canzona::torch_model;
namespace tt = canzona::torch_model::testing;
using canzona::ConfigError;
using canzona::model::ModelSpec;
using canzona::model::ParamRole;

constexpr std::int64_t kBatch = 2;
constexpr std::int64_t kSeq = 10;

class TensorParallelTest : public ::testing::TestWithParam<tt::TinyKind> {
 protected:
  static void SetUpTestSuite() {
    at::set_num_threads(1);  // up to 4 ranks share 2 cores
    world_ = canzona::comm::MpiCommunicator::world();
  }
  static void TearDownTestSuite() { world_.reset(); }

  static tm::ModelOptions options(at::ScalarType dtype) {
    tm::ModelOptions o;
    o.dtype = dtype;
    o.shape = {kBatch, kSeq};
    return o;
  }

  // Runs the single-process and the TP model on the same parameters and batch, then compares
  // the TP rank's logits columns, the loss and its gradient shards with the single-process
  // ones, each within `budget` (max |Δ| / (1 + max |x|) for logits, relative norm for
  // gradients).
  void compare(at::ScalarType dtype, double budget) {
    const std::uint64_t seed = canzona::testing::test_seed();
    SCOPED_TRACE(
        fmt::format("CANZONA_TEST_SEED={} tp={} {}", seed, world_->size(), c10::toString(dtype)));
    const ModelSpec spec = tt::tiny_model(GetParam());
    const tt::Batch batch = tt::random_batch(spec, kBatch, kSeq, seed + 1);

    tm::Qwen3Model single(spec, {}, options(dtype));
    single.init_parameters(tt::test_init(seed));
    const tm::ForwardOutput want = single.forward(batch.tokens, batch.labels);
    want.loss.backward();

    tm::Qwen3Model sharded(spec, tm::TensorParallelGroup(*world_), options(dtype));
    sharded.init_parameters(tt::test_init(seed));
    const tm::ForwardOutput got = sharded.forward(batch.tokens, batch.labels);
    got.loss.backward();

    const tm::VocabShard& shard = sharded.vocab_shard();
    EXPECT_NEAR(got.loss.item<double>(), want.loss.item<double>(),
                budget * (1 + std::abs(want.loss.item<double>())));
    if (shard.valid > 0) {
      const at::Tensor expected = want.logits.narrow(2, shard.start, shard.valid).to(at::kDouble);
      const at::Tensor actual = got.logits.narrow(2, 0, shard.valid).to(at::kDouble);
      EXPECT_LE((actual - expected).abs().max().item<double>() /
                    (1 + expected.abs().max().item<double>()),
                budget);
    }
    const int tp = world_->size();
    for (std::size_t i = 0; i < single.parameters().size(); ++i) {
      const auto& param = single.param_specs()[i];
      // An expert no token reached has no gradient, on the TP ranks as on the single process.
      ASSERT_EQ(sharded.parameters()[i].grad().defined(), single.parameters()[i].grad().defined())
          << param.name;
      at::Tensor full = tt::grad_or_zeros(single.parameters()[i]);
      if (param.role == ParamRole::kEmbedding || param.role == ParamRole::kOutputHead) {
        full = full.narrow(0, 0, spec.vocab_size);  // tp = 1 padding rows carry no gradient
      }
      const at::Tensor expected = tm::tp_shard(full, param, spec, tp, world_->rank());
      const at::Tensor actual = tt::grad_or_zeros(sharded.parameters()[i]);
      EXPECT_LE(tt::relative_error(actual, expected), budget) << param.name;
    }
  }

  static std::unique_ptr<canzona::comm::MpiCommunicator> world_;
};

std::unique_ptr<canzona::comm::MpiCommunicator> TensorParallelTest::world_;

TEST_P(TensorParallelTest, Float64MatchesTheSingleProcessModel) {
  // Only the order of additions in the all-reduces and the sharded GEMMs differs.
  compare(at::kDouble, 1e-12);
}

TEST_P(TensorParallelTest, Float32MatchesTheSingleProcessModelWithinBudget) {
  compare(at::kFloat, 2e-5);
}

// Megatron's collectives and no others: forward one all-reduce for the embedding, one per
// attention and MLP block and two for the cross-entropy; backward one per column-parallel
// input (qkv, fc1 or the experts' input and routing weights, head) and one per QK-norm weight.
TEST_P(TensorParallelTest, IssuesMegatronsAllReducesOnly) {
  const ModelSpec spec = tt::tiny_model(GetParam());
  const tt::Batch batch = tt::random_batch(spec, kBatch, kSeq, canzona::testing::test_seed());
  tm::Qwen3Model model(spec, tm::TensorParallelGroup(*world_), options(at::kFloat));
  model.init_parameters(tt::test_init(1));
  world_->clear_trace();
  const tm::ForwardOutput out = model.forward(batch.tokens, batch.labels);
  const std::int64_t layers = spec.num_layers;
  EXPECT_EQ(static_cast<std::int64_t>(world_->trace().size()), 1 + 2 * layers + 2);
  world_->clear_trace();
  out.loss.backward();
  const std::int64_t per_layer_backward = spec.is_moe() ? 5 : 4;
  EXPECT_EQ(static_cast<std::int64_t>(world_->trace().size()), per_layer_backward * layers + 1);
  for (const auto& entry : world_->trace()) {
    EXPECT_EQ(entry.op, canzona::comm::CollectiveOp::kAllReduce);
  }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, TensorParallelTest, tt::all_tiny_kinds(), tt::tiny_kind_name);

class TensorParallelStartupTest : public ::testing::Test {
 protected:
  void SetUp() override { world_ = canzona::comm::MpiCommunicator::world(); }
  std::unique_ptr<canzona::comm::MpiCommunicator> world_;
};

TEST_F(TensorParallelStartupTest, TpThatDoesNotDivideTheHeadsStopsEveryRank) {
  canzona::testing::TinyDense shape;
  shape.heads = 3;  // no tp in {2, 4} divides 3 heads / 3 KV heads
  shape.kv_heads = 3;
  const ModelSpec spec = canzona::testing::tiny_dense_model(shape);
  EXPECT_THROW(tm::Qwen3Model(spec, tm::TensorParallelGroup(*world_), tm::ModelOptions{}),
               ConfigError);
}

TEST_F(TensorParallelStartupTest, OneRankOutOfMemoryStopsEveryRankWithoutHanging) {
  tm::ModelOptions options;
  options.shape = {kBatch, kSeq};
  if (world_->rank() == 1) {
    options.memory_limit_bytes = 4096;
  }
  try {
    tm::Qwen3Model model(tt::tiny_model(tt::TinyKind::kDense), tm::TensorParallelGroup(*world_),
                         options);
    ADD_FAILURE() << "rank " << world_->rank() << " built the model";
  } catch (const ConfigError& e) {
    const std::string expected = world_->rank() == 1 ? "GiB are available" : "TP rank 1 of";
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

}  // namespace
