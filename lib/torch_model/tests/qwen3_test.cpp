// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The libtorch Qwen3 model on one rank against the independent double-precision reference:
// logits and loss (fp64 and fp32 models), gradients (fp64 autograd against central differences
// of the reference; fp32 autograd against fp64), Megatron names and TP-local shapes of every
// catalog model on the meta device, and bad input. Inputs are fresh random data every run
// (CANZONA_TEST_SEED reproduces one).
#include <canzona/core/error.hpp>
#include <canzona/layout/tp_shapes.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/testing/seed.hpp>
#include <canzona/torch_model/qwen3.hpp>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "reference_qwen3.hpp"
#include "torch_test_support.hpp"

namespace {

namespace tm = canzona::torch_model;
namespace tt = canzona::torch_model::testing;
using canzona::ConfigError;
using canzona::model::ModelSpec;
using canzona::model::ParamRole;

constexpr std::int64_t kBatch = 2;
constexpr std::int64_t kSeq = 12;

// One intra-op thread: ctest runs two tests at a time on two cores.
class OneThread : public ::testing::Environment {
 public:
  void SetUp() override { at::set_num_threads(1); }
};
[[maybe_unused]] const auto* const kOneThread = ::testing::AddGlobalTestEnvironment(new OneThread);

tm::ModelOptions cpu_options(at::ScalarType dtype) {
  tm::ModelOptions options;
  options.dtype = dtype;
  options.shape = {kBatch, kSeq};
  return options;
}

std::vector<std::int64_t> to_vector(const at::Tensor& ids) {
  const at::Tensor flat = ids.contiguous().to(at::kLong);
  return {flat.data_ptr<std::int64_t>(), flat.data_ptr<std::int64_t>() + flat.numel()};
}

std::vector<double> to_doubles(const at::Tensor& t) {
  const at::Tensor flat = t.detach().to(at::kDouble).contiguous();
  return {flat.data_ptr<double>(), flat.data_ptr<double>() + flat.numel()};
}

// The vocabulary rows of a TP = 1 embedding or head; everything else unchanged.
at::Tensor unpadded(const at::Tensor& local, const canzona::model::ParamSpec& param,
                    const ModelSpec& spec) {
  if (param.role == ParamRole::kEmbedding || param.role == ParamRole::kOutputHead) {
    return local.narrow(0, 0, spec.vocab_size);
  }
  return local;
}

tt::ReferenceParams reference_params(const tm::Qwen3Model& model) {
  tt::ReferenceParams params;
  for (std::size_t i = 0; i < model.parameters().size(); ++i) {
    params.push_back(
        to_doubles(unpadded(model.parameters()[i], model.param_specs()[i], model.spec())));
  }
  return params;
}

// Max |Δ| of the real-vocabulary logits over (1 + max |reference logit|).
double logit_error(const tm::ForwardOutput& out, const tt::ReferenceOutput& ref,
                   const ModelSpec& spec) {
  const at::Tensor got = out.logits.narrow(2, 0, spec.vocab_size).reshape({-1, spec.vocab_size});
  const at::Tensor want =
      at::tensor(ref.logits, at::TensorOptions().dtype(at::kDouble)).reshape({-1, spec.vocab_size});
  return (got.to(at::kDouble) - want).abs().max().item<double>() /
         (1.0 + want.abs().max().item<double>());
}

class Qwen3ReferenceTest : public ::testing::TestWithParam<tt::TinyKind> {
 protected:
  ModelSpec spec() const { return tt::tiny_model(GetParam()); }

  struct Run {
    tm::ForwardOutput out;
    tt::ReferenceOutput ref;
  };

  Run run(tm::Qwen3Model& model, std::uint64_t seed) const {
    model.init_parameters(tt::test_init(seed));
    const tt::Batch batch = tt::random_batch(model.spec(), kBatch, kSeq, seed + 1);
    Run r;
    r.out = model.forward(batch.tokens, batch.labels);
    r.ref = tt::reference_forward(model.spec(), reference_params(model), to_vector(batch.tokens),
                                  to_vector(batch.labels), kBatch, kSeq);
    return r;
  }
};

// fp64 end to end: only the order of additions differs from the reference.
TEST_P(Qwen3ReferenceTest, Float64LogitsAndLossEqualTheReference) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  tm::Qwen3Model model(spec(), {}, cpu_options(at::kDouble));
  const Run r = run(model, seed);
  constexpr double kBudget = 1e-12;
  EXPECT_LE(logit_error(r.out, r.ref, model.spec()), kBudget);
  EXPECT_NEAR(r.out.loss.item<double>(), r.ref.loss, kBudget * (1 + std::abs(r.ref.loss)));
  EXPECT_GT(r.ref.loss, 0.0);
}

// fp32 parameters and activations against the fp64 reference on the same (fp32-exact) values.
TEST_P(Qwen3ReferenceTest, Float32LogitsAndLossWithinBudget) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  tm::Qwen3Model model(spec(), {}, cpu_options(at::kFloat));
  const Run r = run(model, seed);
  // fp32 rounding (2^-24 relative) accumulated through two layers and the head.
  constexpr double kBudget = 1e-5;
  EXPECT_LE(logit_error(r.out, r.ref, model.spec()), kBudget);
  EXPECT_NEAR(r.out.loss.item<float>(), r.ref.loss, kBudget * (1 + std::abs(r.ref.loss)));
}

// fp64 autograd (the custom vocab-parallel cross-entropy included) against central differences
// of the independent reference, one random direction per parameter tensor.
TEST_P(Qwen3ReferenceTest, Float64GradientsMatchFiniteDifferencesOfTheReference) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  tm::Qwen3Model model(spec(), {}, cpu_options(at::kDouble));
  const Run r = run(model, seed);
  r.out.loss.backward();
  const tt::Batch batch = tt::random_batch(model.spec(), kBatch, kSeq, seed + 1);
  const auto tokens = to_vector(batch.tokens);
  const auto labels = to_vector(batch.labels);
  const tt::ReferenceParams base = reference_params(model);
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed + 2);
  for (std::size_t i = 0; i < base.size(); ++i) {
    const auto& param = model.param_specs()[i];
    const at::Tensor grad = tt::grad_or_zeros(model.parameters()[i]);
    const at::Tensor used = unpadded(grad, param, model.spec());
    if (used.numel() != grad.numel()) {
      EXPECT_EQ(
          grad.narrow(0, used.size(0), grad.size(0) - used.size(0)).abs().max().item<double>(), 0.0)
          << param.name << ": vocabulary padding rows got a gradient";
    }
    at::Tensor direction =
        at::randn(used.sizes(), generator, at::TensorOptions().dtype(at::kDouble));
    direction /= direction.norm();
    const double analytic = (used * direction).sum().item<double>();
    const std::vector<double> step = to_doubles(direction);
    // A step that changes which experts a token picks leaves the region where the loss is
    // smooth; shrink it until the routing is the one of the unperturbed run.
    double numeric = 0;
    bool smooth = false;
    for (double eps = 1e-5; eps > 1e-8 && !smooth; eps /= 4) {
      tt::ReferenceParams plus = base;
      tt::ReferenceParams minus = base;
      for (std::size_t j = 0; j < step.size(); ++j) {
        plus[i][j] += eps * step[j];
        minus[i][j] -= eps * step[j];
      }
      const tt::ReferenceOutput up =
          tt::reference_forward(model.spec(), plus, tokens, labels, kBatch, kSeq);
      const tt::ReferenceOutput down =
          tt::reference_forward(model.spec(), minus, tokens, labels, kBatch, kSeq);
      smooth = up.routing == r.ref.routing && down.routing == r.ref.routing;
      numeric = (up.loss - down.loss) / (2 * eps);
    }
    ASSERT_TRUE(smooth) << param.name << ": no step keeps the routing";
    // Truncation O(eps²) and rounding O(1e-16 / eps) are far below this.
    const double scale = used.norm().item<double>();
    EXPECT_NEAR(analytic, numeric, 1e-7 * scale + 1e-12)
        << param.name << " (gradient norm " << scale << ")";
  }
}

// fp32 gradients against the fp64 model's (itself checked above), tensor by tensor.
TEST_P(Qwen3ReferenceTest, Float32GradientsWithinBudgetOfFloat64) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  tm::Qwen3Model wide(spec(), {}, cpu_options(at::kDouble));
  tm::Qwen3Model narrow(spec(), {}, cpu_options(at::kFloat));
  run(wide, seed).out.loss.backward();
  run(narrow, seed).out.loss.backward();
  constexpr double kBudget = 5e-5;
  for (std::size_t i = 0; i < wide.parameters().size(); ++i) {
    EXPECT_LE(tt::relative_error(tt::grad_or_zeros(narrow.parameters()[i]),
                                 tt::grad_or_zeros(wide.parameters()[i])),
              kBudget)
        << wide.param_specs()[i].name;
  }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, Qwen3ReferenceTest, tt::all_tiny_kinds(), tt::tiny_kind_name);

// Every catalog model at every tp it allows (up to 8): the model's tensors are exactly
// model::parameters' names in Megatron order with lib/layout's TP-local shapes.
TEST(Qwen3CatalogTest, EveryCatalogModelHasMegatronNamesAndTpLocalShapes) {
  for (const ModelSpec& spec : canzona::model::catalog()) {
    for (int tp : {1, 2, 4, 8}) {
      if (spec.num_kv_heads % tp != 0) {
        continue;
      }
      SCOPED_TRACE(fmt::format("{} tp={}", spec.name, tp));
      tt::ShapeOnlyCommunicator comm(tp - 1, tp);
      tm::ModelOptions options;
      options.device = at::kMeta;
      const tm::Qwen3Model model(spec, tm::TensorParallelGroup(comm), options);
      const auto expected =
          canzona::model::parameters(spec, canzona::model::ParamLayout::kMegatron);
      ASSERT_EQ(model.param_specs().size(), expected.size());
      ASSERT_EQ(model.parameters().size(), expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(model.param_specs()[i].name, expected[i].name);
        EXPECT_EQ(model.parameters()[i].sizes().vec(),
                  canzona::layout::tp_local_shape(expected[i], spec, tp))
            << expected[i].name;
        EXPECT_TRUE(model.parameters()[i].requires_grad());
      }
    }
  }
}

// Hand-checked against the published Megatron shard table (Qwen3-32B, tp 8).
TEST(Qwen3CatalogTest, Qwen3_32bShardsAtTp8) {
  tt::ShapeOnlyCommunicator comm(3, 8);
  tm::ModelOptions options;
  options.device = at::kMeta;
  const tm::Qwen3Model model(canzona::model::find_model("qwen3-32b"), tm::TensorParallelGroup(comm),
                             options);
  const auto shape = [&](const std::string& name) {
    for (std::size_t i = 0; i < model.param_specs().size(); ++i) {
      if (model.param_specs()[i].name == name) return model.parameters()[i].sizes().vec();
    }
    ADD_FAILURE() << "no parameter " << name;
    return std::vector<std::int64_t>{};
  };
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(shape("decoder.layers.5.self_attention.linear_qkv.weight"), (V{1280, 5120}));
  EXPECT_EQ(shape("decoder.layers.5.self_attention.linear_proj.weight"), (V{5120, 1024}));
  EXPECT_EQ(shape("decoder.layers.5.mlp.linear_fc1.weight"), (V{6400, 5120}));
  EXPECT_EQ(shape("decoder.layers.5.mlp.linear_fc2.weight"), (V{5120, 3200}));
  EXPECT_EQ(shape("embedding.word_embeddings.weight"), (V{19072, 5120}));
  EXPECT_EQ(shape("output_layer.weight"), (V{19072, 5120}));
  EXPECT_EQ(shape("decoder.layers.5.self_attention.q_layernorm.weight"), (V{128}));
  EXPECT_EQ(model.vocab_shard().start, 3 * 19072);
  EXPECT_EQ(model.vocab_shard().valid, 19072);
}

TEST(Qwen3BadInputTest, EmptyRunShapeIsRejectedBeforeAllocating) {
  const ModelSpec spec = tt::tiny_model(tt::TinyKind::kDense);
  tm::ModelOptions options = cpu_options(at::kFloat);
  options.shape.micro_batch = 0;
  EXPECT_THROW(tm::Qwen3Model(spec, {}, options), ConfigError);
  options.shape = {2, 0};
  EXPECT_THROW(tm::Qwen3Model(spec, {}, options), ConfigError);
  options.shape = {2, spec.max_position_embeddings + 1};
  EXPECT_THROW(tm::Qwen3Model(spec, {}, options), ConfigError);
}

TEST(Qwen3BadInputTest, TpThatDoesNotDivideTheHeadsIsRejected) {
  const ModelSpec spec = tt::tiny_model(tt::TinyKind::kDense);  // 8 heads, 4 KV heads
  tt::ShapeOnlyCommunicator comm(1, 3);
  try {
    tm::Qwen3Model model(spec, tm::TensorParallelGroup(comm), cpu_options(at::kFloat));
    FAIL() << "tp=3 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("num_attention_heads"), std::string::npos) << e.what();
  }
}

TEST(Qwen3BadInputTest, ModelTooLargeForMemoryIsRejectedBeforeAllocating) {
  // Qwen3-235B-A22B in fp32 needs ~1 TB: no machine running this test has it.
  tm::ModelOptions options;
  options.shape = {1, 16};
  try {
    tm::Qwen3Model model(canzona::model::find_model("qwen3-235b-a22b"), {}, options);
    FAIL() << "a 235B-parameter model fit into host memory";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("GiB are available"), std::string::npos) << e.what();
  }
  // And an explicit budget below the tiny model's needs.
  options = cpu_options(at::kFloat);
  options.memory_limit_bytes = 4096;
  EXPECT_THROW(tm::Qwen3Model(tt::tiny_model(tt::TinyKind::kDense), {}, options), ConfigError);
}

TEST(Qwen3BadInputTest, ForwardRejectsEmptyOrOutOfRangeInput) {
  const ModelSpec spec = tt::tiny_model(tt::TinyKind::kDense);
  tm::Qwen3Model model(spec, {}, cpu_options(at::kFloat));
  const at::TensorOptions ids = at::TensorOptions().dtype(at::kLong);
  EXPECT_THROW(model.forward(at::zeros({2, 0}, ids), at::zeros({2, 0}, ids)), ConfigError);
  EXPECT_THROW(model.forward(at::zeros({0, 4}, ids), at::zeros({0, 4}, ids)), ConfigError);
  EXPECT_THROW(model.forward(at::zeros({2, 4}, ids), at::zeros({2, 5}, ids)), ConfigError);
  EXPECT_THROW(model.forward(at::zeros({2, 4}, ids).fill_(spec.vocab_size), at::zeros({2, 4}, ids)),
               ConfigError);
  EXPECT_THROW(model.forward(at::zeros({2, 4}, ids).to(at::kInt), at::zeros({2, 4}, ids)),
               ConfigError);
  EXPECT_THROW(model.forward(at::zeros({kBatch + 1, 4}, ids), at::zeros({kBatch + 1, 4}, ids)),
               ConfigError);
}

}  // namespace
