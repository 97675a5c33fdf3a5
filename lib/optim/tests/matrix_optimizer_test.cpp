// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The backend optimizers on the cpu backend: every optimizer against its double reference over
// 20+ step trajectories, batched == one by one, non-finite gradients, validation.
#include "optim_test_support.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/core/error.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace canzona::optim {
namespace {

using test::DeviceArray;
using test::Matrix;
using test::NamedShape;

constexpr int kSteps = 21;

std::unique_ptr<backend::Backend> cpu() { return backend::make_backend("cpu"); }

void expect_matches(const OptimizerSpec& spec, const NamedShape& shape, double update_budget,
                    double param_budget) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(
      fmt::format("seed {} (CANZONA_TEST_SEED reproduces), {}", seed, test::describe(spec, shape)));
  auto be = cpu();
  const test::TrajectoryResult r = test::run_trajectory(*be, spec, shape.shape, kSteps, seed);
  EXPECT_LE(r.max_update_rel, update_budget)
      << "worst per-step relative update error (rtol " << update_budget << ")";
  EXPECT_LE(r.max_param_rel, param_budget)
      << "worst parameter error relative to the parameter's movement (rtol " << param_budget << ")";
  EXPECT_EQ(r.nonfinite, 0u);
}

// ---- Muon --------------------------------------------------------------------------------------

// fp32 Newton–Schulz: each GEMM rounds with u = 2^-24 ≈ 6e-8 per operation over dot products
// of length ≤ 16 here, and the NS map's slope (|f'(σ)| ≤ a ≈ 3.4 on small σ, ≈ 1 near the
// converged band) carries those errors through 5 iterations: ~1e-6 relative in norm (measured
// 1–4e-6). Budget 1e-5 on the per-step update and on the parameter trajectory (gradients are
// fresh and independent of the parameter, so errors add up but do not compound).
constexpr double kMuonFp32Budget = 1e-5;

// bf16 Newton–Schulz: test::kMuonBf16UpdateBudget / kMuonBf16ParamBudget (optim_test_support.hpp).

TEST(MuonTest, Fp32MatchesReferenceOnEveryShape) {
  for (const auto& shape : test::test_shapes()) {
    for (const bool nesterov : {true, false}) {
      for (const MuonScale scale : {MuonScale::kRmsMatch, MuonScale::kAspectRatio}) {
        OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
        s.muon.ns_precision = NsPrecision::kFloat32;
        s.muon.nesterov = nesterov;
        s.muon.scale = scale;
        SCOPED_TRACE(fmt::format("nesterov {} scale {}", nesterov, static_cast<int>(scale)));
        expect_matches(s, shape, kMuonFp32Budget, kMuonFp32Budget);
      }
    }
  }
}

TEST(MuonTest, Fp32MatchesReferenceWithEveryCoefficientSet) {
  for (const NsCoefficients set :
       {NsCoefficients::kSimple, NsCoefficients::kQuintic, NsCoefficients::kPolarExpress,
        NsCoefficients::kAolNvidia, NsCoefficients::kQwenExpress}) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
    s.muon.ns_precision = NsPrecision::kFloat32;
    s.muon.coefficients = set;
    s.muon.ns_steps = 8;  // past the end of the shorter tables: the last tuple repeats
    SCOPED_TRACE(to_string(set));
    // polar_express-style tables start with a ≈ 8.2: the first iteration amplifies input
    // rounding by up to ~8 more than the simple set does.
    expect_matches(s, test::test_shapes()[0], 10 * kMuonFp32Budget, 10 * kMuonFp32Budget);
    expect_matches(s, test::test_shapes()[1], 10 * kMuonFp32Budget, 10 * kMuonFp32Budget);
  }
}

TEST(MuonTest, Bf16MatchesReferenceWithinBf16Budget) {
  for (const auto& shape : test::test_shapes()) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
    s.muon.ns_precision = NsPrecision::kBFloat16;
    expect_matches(s, shape, test::kMuonBf16UpdateBudget, test::kMuonBf16ParamBudget);
  }
}

// ---- Shampoo -----------------------------------------------------------------------------------

// fp32 statistics and an fp32 eigensolver: eigenvector errors are ≈ u·‖L‖/gap (u ≈ 6e-8);
// test_gradient (random + spread diagonal) keeps relative gaps ≳ 0.04, so the roots carry
// ~1e-5 relative error (measured ≤ 1e-5). Budget 1e-4 relative, on the update and the trajectory.
//
// Conditioning: test::kShampooTestEpsilon (optim_test_support.hpp) explains the ε = 1e-3 below.
constexpr double kShampooBudget = 1e-4;

TEST(ShampooTest, MatchesReferenceAcrossRefreshes) {
  for (const auto& shape : test::test_shapes()) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kShampoo);
    s.shampoo.epsilon = test::kShampooTestEpsilon;
    expect_matches(s, shape, kShampooBudget, kShampooBudget);
  }
}

TEST(ShampooTest, MatchesReferenceWithDefaultEpsilonOnFullRankStatistics) {
  OptimizerSpec s = test::test_spec(OptimizerKind::kShampoo);
  expect_matches(s, test::test_shapes()[2], kShampooBudget, kShampooBudget);
}

TEST(ShampooTest, MatchesReferenceWithOneSideUnpreconditioned) {
  for (const auto& shape : test::test_shapes()) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kShampoo);
    s.shampoo.epsilon = test::kShampooTestEpsilon;
    s.shampoo.max_precond_dim = 6;   // tall: R only; wide: L only; square, tiny, row: per side
    s.shampoo.refresh_interval = 1;  // every step refreshes
    expect_matches(s, shape, kShampooBudget, kShampooBudget);
  }
}

TEST(ShampooTest, MatchesReferenceWithDistributedShampoosScheduleAndBiasCorrection) {
  for (const auto& shape : test::test_shapes()) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kShampoo);
    s.shampoo.epsilon = test::kShampooTestEpsilon;
    s.shampoo.bias_correct_statistics = true;
    s.shampoo.refresh_at_multiples = true;
    s.shampoo.start_preconditioning_step = s.shampoo.refresh_interval;
    expect_matches(s, shape, kShampooBudget, kShampooBudget);
  }
}

// ---- SOAP --------------------------------------------------------------------------------------

// As Shampoo: fp32 eigenbases with well-separated eigenvalues carry ~1e-6 relative error, but
// SOAP then divides the rotated M by sqrt(V) element by element, and the entries of V off the
// dominant (near-diagonal) pattern are small, so their relative error is the basis error
// divided by their relative size; test_spec's eps = 1e-3 bounds that amplification (see there).
// Measured ≤ 6.6e-5 per step over 1000 seeds; budget 5e-4.
// SOAP's update depends on the basis chosen inside a degenerate eigenspace (reference header),
// and the statistic of the long side of a non-square G starts rank deficient, so non-square
// shapes precondition only their short side (max_precond_dim below the long side); the square
// shape exercises both sides.
constexpr double kSoapBudget = 5e-4;

TEST(SoapTest, MatchesReferenceAcrossRefreshes) {
  for (const auto& shape : test::test_shapes()) {
    for (const bool normalize : {false, true}) {
      for (const bool bias : {true, false}) {
        OptimizerSpec s = test::test_spec(OptimizerKind::kSoap);
        s.soap.max_precond_dim = std::min(shape.shape.rows, shape.shape.cols);
        s.soap.normalize_grads = normalize;
        s.soap.correct_bias = bias;
        SCOPED_TRACE(fmt::format("normalize_grads {} correct_bias {}", normalize, bias));
        expect_matches(s, shape, kSoapBudget, kSoapBudget);
      }
    }
  }
}

TEST(SoapTest, MatchesReferenceWithoutAnyBasis) {
  OptimizerSpec s = test::test_spec(OptimizerKind::kSoap);
  s.soap.max_precond_dim = 1;  // 16×6: no side qualifies; plain Adam after the first call
  s.soap.shampoo_beta = -1;    // β_s = β2
  expect_matches(s, test::test_shapes()[0], kSoapBudget, kSoapBudget);
}

// ---- AdamW -------------------------------------------------------------------------------------

// One fused element-wise kernel in fp32: a few roundings per element (u ≈ 6e-8) and the
// division by sqrt(v) + eps, which is well away from zero for these gradients. Budget 1e-5.
TEST(AdamWTest, MatchesReference) {
  for (const auto& shape : test::test_shapes()) {
    expect_matches(test::test_spec(OptimizerKind::kAdamW), shape, 1e-5, 1e-5);
  }
}

// ---- batched == one by one -------------------------------------------------------------------

std::vector<float> download_tensor(backend::Backend& be, const StateTensor& t) {
  std::vector<float> out(static_cast<std::size_t>(t.rows * t.cols));
  be.download(out.data(), t.data, out.size() * sizeof(float));
  return out;
}

bool bitwise_equal(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The cpu backend runs a strided batch as a loop over items with the same kernel, and the
// batch gathers are exact copies, so batched and one-by-one steps must agree bit for bit.
void expect_batch_equals_single(const OptimizerSpec& spec, std::uint64_t seed) {
  SCOPED_TRACE(fmt::format("seed {}, {}", seed, to_string(spec.kind)));
  auto be = cpu();
  const std::vector<Shape> shapes = {{8, 8}, {6, 10}, {8, 8}, {1, 7}, {6, 10}, {8, 8}, {12, 4}};
  const std::vector<Shape> distinct = {{8, 8}, {6, 10}, {1, 7}, {12, 4}};
  auto batched = make_matrix_optimizer(spec, *be);
  auto single = make_matrix_optimizer(spec, *be);
  batched->reserve(distinct, 2);  // three 8×8 matrices: chunks of 2 and 1
  std::vector<std::unique_ptr<MatrixState>> sb, ss;
  std::vector<DeviceArray> pb, ps, grads;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape s = shapes[i];
    sb.push_back(batched->make_state(s.rows, s.cols));
    ss.push_back(single->make_state(s.rows, s.cols));
    const Matrix p0 = test::fp32_exact(reference::random_normal(s.rows, s.cols, seed + 1000 + i));
    pb.emplace_back(*be, s.rows * s.cols);
    ps.emplace_back(*be, s.rows * s.cols);
    grads.emplace_back(*be, s.rows * s.cols);
    pb.back().upload(p0);
    ps.back().upload(p0);
  }
  for (int t = 1; t <= 10; ++t) {
    std::vector<StepTask> tasks;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      grads[i].upload(
          test::test_gradient(shapes[i], seed + 100 * static_cast<std::uint64_t>(t) + i));
      tasks.push_back(StepTask{sb[i].get(), pb[i].data(), grads[i].data(), shapes[i], "w"});
    }
    batched->step_batch(tasks);
    for (std::size_t i = 0; i < shapes.size(); ++i)
      single->step(*ss[i], ps[i].data(), grads[i].data());
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      SCOPED_TRACE(fmt::format("step {} matrix {}", t, i));
      ASSERT_TRUE(bitwise_equal(pb[i].download_floats(), ps[i].download_floats()));
      const auto tb = sb[i]->tensors();
      const auto ts = ss[i]->tensors();
      ASSERT_EQ(tb.size(), ts.size());
      for (std::size_t k = 0; k < tb.size(); ++k) {
        EXPECT_TRUE(bitwise_equal(download_tensor(*be, tb[k]), download_tensor(*be, ts[k])))
            << "state tensor " << tb[k].name;
      }
      EXPECT_EQ(sb[i]->steps(), t);
    }
  }
}

TEST(BatchTest, StepBatchEqualsOneByOneBitwise) {
  const std::uint64_t seed = canzona::testing::test_seed();
  for (const NsPrecision p : {NsPrecision::kFloat32, NsPrecision::kBFloat16}) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
    s.muon.ns_precision = p;
    expect_batch_equals_single(s, seed);
  }
  OptimizerSpec sh = test::test_spec(OptimizerKind::kShampoo);
  expect_batch_equals_single(sh, seed);
  sh.shampoo.max_precond_dim = 8;  // 6×10 and 12×4 lose a side
  expect_batch_equals_single(sh, seed);
  OptimizerSpec so = test::test_spec(OptimizerKind::kSoap);
  expect_batch_equals_single(so, seed);
  so.soap.max_precond_dim = 8;
  so.soap.normalize_grads = true;
  expect_batch_equals_single(so, seed);
  expect_batch_equals_single(test::test_spec(OptimizerKind::kAdamW), seed);
}

// ---- split steps: direction, then apply (piece by piece) == in place ------------------------

// A TP host computes a gathered matrix's direction and every TP rank applies its own shard: the
// pieces of an applied direction must give bitwise what the in-place step gives, every step.
// Three 8×8 matrices share one batch, one of them stepped in place beside the split ones.
void expect_split_equals_in_place(const OptimizerSpec& spec, std::uint64_t seed) {
  SCOPED_TRACE(fmt::format("seed {}, {}", seed, to_string(spec.kind)));
  auto be = cpu();
  const std::vector<Shape> shapes = {{8, 8}, {6, 10}, {12, 4}, {8, 8}, {8, 8}};
  const std::size_t in_place_in_batch = 3;
  auto split = make_matrix_optimizer(spec, *be);
  auto in_place = make_matrix_optimizer(spec, *be);
  const std::size_t es = backend::element_size(split->direction_type());
  std::vector<std::unique_ptr<MatrixState>> s_split, s_in_place;
  std::vector<DeviceArray> p_split, p_in_place, grads;
  std::vector<backend::Buffer> directions;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape s = shapes[i];
    s_split.push_back(split->make_state(s.rows, s.cols));
    s_in_place.push_back(in_place->make_state(s.rows, s.cols));
    const Matrix p0 = test::fp32_exact(reference::random_normal(s.rows, s.cols, seed + 300 + i));
    p_split.emplace_back(*be, s.rows * s.cols);
    p_in_place.emplace_back(*be, s.rows * s.cols);
    grads.emplace_back(*be, s.rows * s.cols);
    p_split.back().upload(p0);
    p_in_place.back().upload(p0);
    directions.push_back(be->allocate(static_cast<std::size_t>(s.rows * s.cols) * es));
  }
  for (int t = 1; t <= 6; ++t) {
    std::vector<StepTask> tasks;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      grads[i].upload(
          test::test_gradient(shapes[i], seed + 50 * static_cast<std::uint64_t>(t) + i));
      StepTask task{s_split[i].get(), nullptr, grads[i].data(), shapes[i], "w"};
      if (i == in_place_in_batch) {
        task.param = p_split[i].data();
      } else {
        task.direction = directions[i].data();
      }
      tasks.push_back(task);
    }
    split->step_batch(tasks);
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      // Three uneven pieces, as TP shards would cut it.
      const std::int64_t n = shapes[i].rows * shapes[i].cols;
      const std::int64_t cuts[] = {0, n / 3, n / 3 + n / 4, n};
      for (int k = 0; k < 3 && i != in_place_in_batch; ++k) {
        split->apply_direction(
            p_split[i].data() + cuts[k],
            directions[i].as<std::byte>() + cuts[k] * static_cast<std::int64_t>(es),
            cuts[k + 1] - cuts[k], shapes[i], t);
      }
      in_place->step(*s_in_place[i], p_in_place[i].data(), grads[i].data());
      SCOPED_TRACE(fmt::format("step {} matrix {}", t, i));
      EXPECT_TRUE(bitwise_equal(p_split[i].download_floats(), p_in_place[i].download_floats()));
      EXPECT_EQ(s_split[i]->steps(), t);
    }
  }
}

TEST(SplitStepTest, DirectionThenShardedApplyEqualsInPlaceBitwise) {
  const std::uint64_t seed = canzona::testing::test_seed();
  for (const NsPrecision p : {NsPrecision::kFloat32, NsPrecision::kBFloat16}) {
    OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
    s.muon.ns_precision = p;
    expect_split_equals_in_place(s, seed);
  }
  expect_split_equals_in_place(test::test_spec(OptimizerKind::kShampoo), seed);
  expect_split_equals_in_place(test::test_spec(OptimizerKind::kSoap), seed);
}

TEST(SplitStepTest, DirectionTypesAndRules) {
  OptimizerSpec muon = test::test_spec(OptimizerKind::kMuon);
  muon.muon.ns_precision = NsPrecision::kBFloat16;
  EXPECT_EQ(direction_type(muon), backend::ElementType::kBFloat16);
  muon.muon.ns_precision = NsPrecision::kFloat32;
  EXPECT_EQ(direction_type(muon), backend::ElementType::kFloat32);
  EXPECT_EQ(direction_type(test::test_spec(OptimizerKind::kSoap)), backend::ElementType::kFloat32);
  EXPECT_THROW((void)direction_type(test::test_spec(OptimizerKind::kAdamW)), ConfigError);
  auto be = cpu();
  // SOAP's first call leaves the parameter alone; later calls apply with their bias correction.
  auto soap = make_matrix_optimizer(test::test_spec(OptimizerKind::kSoap), *be);
  EXPECT_FALSE(soap->direction_rule({4, 4}, 1).apply);
  EXPECT_TRUE(soap->direction_rule({4, 4}, 2).apply);
  EXPECT_EQ(soap->direction_rule({4, 4}, 2).order, backend::DecayOrder::kAfterUpdate);
  // AdamW steps in place only.
  auto adamw = make_matrix_optimizer(test::test_spec(OptimizerKind::kAdamW), *be);
  auto state = adamw->make_state(1, 4);
  DeviceArray g(*be, 4);
  auto out = be->allocate(16);
  StepTask task{state.get(), nullptr, g.data(), {1, 4}, "bias"};
  task.direction = out.data();
  EXPECT_THROW(adamw->step_batch(std::span<const StepTask>(&task, 1)), ConfigError);
}

// ---- non-finite gradients ----------------------------------------------------------------------

TEST(NonfiniteTest, NanAndInfAreCountedAndTheCheckNamesTheParameter) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  for (const OptimizerKind kind : {OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                   OptimizerKind::kSoap, OptimizerKind::kAdamW}) {
    for (const float bad :
         {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity()}) {
      SCOPED_TRACE(fmt::format("{} with {}", to_string(kind), bad));
      auto be = cpu();
      auto opt = make_matrix_optimizer(test::test_spec(kind), *be);
      const Shape shape{6, 4};
      auto state = opt->make_state(shape.rows, shape.cols);
      DeviceArray p(*be, 24);
      DeviceArray g(*be, 24);
      p.upload(test::fp32_exact(reference::random_normal(6, 4, seed)));
      g.upload(test::test_gradient(shape, seed + 1));
      opt->step(*state, p.data(), g.data());
      EXPECT_NO_THROW(check_finite_gradients(*opt, "layers.0.mlp.fc1"));

      Matrix grad = test::test_gradient(shape, seed + 2);
      grad(2, 3) = bad;
      grad(5, 0) = bad;
      g.upload(grad);
      opt->step(*state, p.data(), g.data());
      EXPECT_EQ(opt->nonfinite_gradients(), 2u);
      try {
        check_finite_gradients(*opt, "layers.3.self_attention.linear_qkv");
        ADD_FAILURE() << "expected canzona::Error";
      } catch (const ConfigError&) {
        ADD_FAILURE() << "a bad gradient is not a configuration error";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layers.3.self_attention.linear_qkv"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("2 NaN/Inf"), std::string::npos) << e.what();
      }
      // The check reset the counter: a clean step passes again.
      g.upload(test::test_gradient(shape, seed + 3));
      opt->step(*state, p.data(), g.data());
      EXPECT_EQ(opt->nonfinite_gradients(), 0u);
    }
  }
}

// ---- validation --------------------------------------------------------------------------------

TEST(ValidationTest, BadShapesAndForeignStatesAreConfigErrors) {
  auto be = cpu();
  auto muon = make_matrix_optimizer(test::test_spec(OptimizerKind::kMuon), *be);
  auto soap = make_matrix_optimizer(test::test_spec(OptimizerKind::kSoap), *be);
  EXPECT_THROW(muon->make_state(0, 5), ConfigError);
  EXPECT_THROW(muon->make_state(3, -1), ConfigError);
  EXPECT_THROW(muon->state_bytes(0, 1), ConfigError);
  const std::vector<Shape> bad_shape = {{4, 0}};
  EXPECT_THROW(muon->reserve(bad_shape, 1), ConfigError);
  const std::vector<Shape> good_shape = {{4, 4}};
  EXPECT_THROW(muon->reserve(good_shape, 0), ConfigError);

  auto state = muon->make_state(4, 4);
  auto soap_state = soap->make_state(4, 4);
  DeviceArray p(*be, 16);
  DeviceArray g(*be, 16);
  EXPECT_THROW(soap->step(*state, p.data(), g.data()), ConfigError);  // Muon's state
  EXPECT_THROW(muon->step(*state, nullptr, g.data()), ConfigError);
  EXPECT_THROW(muon->step(*state, p.data(), nullptr), ConfigError);
  const StepTask mismatch{state.get(), p.data(), g.data(), Shape{2, 8}, "layers.0.qkv"};
  try {
    muon->step_batch(std::span<const StepTask>(&mismatch, 1));
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("layers.0.qkv"), std::string::npos) << e.what();
  }
  const StepTask twice[2] = {{state.get(), p.data(), g.data(), {}, "a"},
                             {state.get(), p.data(), g.data(), {}, "b"}};
  EXPECT_THROW(muon->step_batch(twice), ConfigError);
  EXPECT_EQ(state->steps(), 0) << "a rejected step must not count";
}

TEST(ValidationTest, InvalidHyperParametersAreConfigErrors) {
  auto be = cpu();
  auto expect_bad = [&](OptimizerSpec s, const char* what) {
    SCOPED_TRACE(what);
    EXPECT_THROW(make_matrix_optimizer(s, *be), ConfigError);
  };
  OptimizerSpec s = test::test_spec(OptimizerKind::kMuon);
  s.muon.momentum = 1.5;
  expect_bad(s, "muon momentum");
  s = test::test_spec(OptimizerKind::kMuon);
  s.muon.ns_steps = -1;
  expect_bad(s, "muon ns_steps");
  s = test::test_spec(OptimizerKind::kMuon);
  s.muon.lr = -1;
  expect_bad(s, "muon lr");
  s = test::test_spec(OptimizerKind::kShampoo);
  s.shampoo.refresh_interval = 0;
  expect_bad(s, "shampoo refresh_interval");
  s = test::test_spec(OptimizerKind::kShampoo);
  s.shampoo.beta2 = 1.0;
  expect_bad(s, "shampoo beta2");
  s = test::test_spec(OptimizerKind::kSoap);
  s.soap.precondition_frequency = 0;
  expect_bad(s, "soap precondition_frequency");
  s = test::test_spec(OptimizerKind::kSoap);
  s.soap.eps = -1e-8;
  expect_bad(s, "soap eps");
  s = test::test_spec(OptimizerKind::kAdamW);
  s.adamw.beta1 = -0.1;
  expect_bad(s, "adamw beta1");
}

TEST(MatrixOptimizerTest, NamesKindsAndStateTensors) {
  auto be = cpu();
  for (const OptimizerKind kind : {OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                   OptimizerKind::kSoap, OptimizerKind::kAdamW}) {
    auto opt = make_matrix_optimizer(test::test_spec(kind), *be);
    EXPECT_EQ(opt->kind(), kind);
    EXPECT_EQ(opt->name(), to_string(kind));
    auto state = opt->make_state(5, 3);
    EXPECT_EQ(state->kind(), kind);
    EXPECT_EQ(state->shape(), (Shape{5, 3}));
    EXPECT_EQ(state->steps(), 0);
    std::size_t bytes = 0;
    for (const auto& t : state->tensors()) bytes += static_cast<std::size_t>(t.rows * t.cols) * 4;
    EXPECT_EQ(bytes, state->bytes());
    EXPECT_EQ(state->bytes(), opt->state_bytes(5, 3));
    EXPECT_GE(opt->reserved_workspace_bytes(), opt->workspace_bytes(5, 3, 1));
  }
}

}  // namespace
}  // namespace canzona::optim
