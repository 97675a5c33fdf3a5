// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// `canzona-bench step` end to end: .npy in, steps on the cpu backend agree with the
// double-precision reference, .npy out; bad files and flags exit 2 without writing anything.
#include <canzona/testing/run_process.hpp>

#include <canzona/io/npy.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/options.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace canzona::testing {
namespace {

namespace fs = std::filesystem;

class StepCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Printed so a failure can be reproduced with CANZONA_TEST_SEED=<seed>.
    std::fprintf(stderr, "CANZONA_TEST_SEED=%llu\n", static_cast<unsigned long long>(test_seed()));
    dir_ = fs::temp_directory_path() /
           ("canzona-step-" + std::to_string(test_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    rng_.seed(test_seed());
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string file(const std::string& name) const { return (dir_ / name).string(); }

  // Normal entries; `spread_diagonal` makes a square matrix diag(2 + 8·i/n) + 0.1·N instead, so
  // its singular values stay within [1, 11] (‖0.1·N‖₂ ≈ 0.2·sqrt(n) < 1) and its Gram matrices
  // are well conditioned: Shampoo's inverse roots amplify fp32 round-off by about
  // λ_min^(-5/4), which on a plain random matrix measures the eigensolver's conditioning rather
  // than the plumbing under test.
  std::string write_random(const std::string& name, std::vector<std::int64_t> shape,
                           io::NpyDType dtype = io::NpyDType::kFloat32,
                           bool spread_diagonal = false) {
    io::NpyArray a;
    a.shape = std::move(shape);
    a.dtype = dtype;
    a.values.resize(static_cast<std::size_t>(a.numel()));
    std::normal_distribution<double> normal(0.0, 1.0);
    for (double& v : a.values) v = normal(rng_);
    if (spread_diagonal) {
      const std::int64_t n = a.shape[0];
      for (double& v : a.values) v *= 0.1;
      for (std::int64_t i = 0; i < n; ++i) {
        a.values[static_cast<std::size_t>(i * n + i)] += 2.0 + 8.0 * static_cast<double>(i) / n;
      }
    }
    for (double& v : a.values) v = static_cast<float>(v);
    io::write_npy(file(name), a);
    return file(name);
  }

  static ProcessResult bench(std::vector<std::string> args) {
    args.insert(args.begin(), "step");
    return run_process(CANZONA_BENCH_EXE, args);
  }

  // ‖Δa − Δb‖ / ‖Δb‖ where Δ is the change from `start`: parameters are dominated by their old
  // value, so the relative error of the update is the quantity with a meaningful budget.
  static double update_error(const io::NpyArray& start, const io::NpyArray& a,
                             const io::NpyArray& b) {
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < start.values.size(); ++i) {
      const double da = a.values[i] - start.values[i];
      const double db = b.values[i] - start.values[i];
      diff += (da - db) * (da - db);
      norm += db * db;
    }
    return std::sqrt(diff / norm);
  }

  fs::path dir_;
  std::mt19937_64 rng_;
};

TEST_F(StepCommandTest, CpuBackendAgreesWithTheDoublePrecisionReference) {
  // Square, so Shampoo's and SOAP's statistics are full rank after the first step: on a
  // rectangular matrix the long side's statistic is rank-deficient and its round-off-sized
  // eigenvalues make any fp32 implementation differ from double (lib/optim/README.md).
  const std::string param = write_random("p.npy", {24, 24});
  std::vector<std::string> grads;
  for (const char* name : {"g0.npy", "g1.npy", "g2.npy"}) {
    grads.push_back(write_random(name, {24, 24}, io::NpyDType::kFloat32, true));
  }
  // A large learning rate makes the update dominate the fp32 rounding of the stored parameter,
  // so the error measured is the optimizer's. fp32 Newton-Schulz differs from the double
  // reference by round-off amplified by five iterations; the eigensolver-based optimizers by
  // the eigenvector conditioning of the statistics. The budgets sit well above the observed
  // errors yet far below the O(1) error of any formula mistake.
  const struct {
    std::vector<std::string> flags;
    double budget;
  } cases[] = {
      {{"--optimizer", "muon", "--ns-precision", "fp32", "--lr", "0.05"}, 1e-4},
      {{"--optimizer", "adamw", "--lr", "0.05"}, 1e-5},
      {{"--optimizer", "shampoo", "--refresh-interval", "2", "--lr", "0.05"}, 1e-3},
      // SOAP's Adam runs in the statistics' eigenbasis, where the gradient is nearly diagonal:
      // its off-diagonal entries are differences between the steps' gradients, some of them
      // near zero, and Adam's first steps send every entry above eps to ±lr whatever its size,
      // so an entry whose sign is fp32 round-off moved by 2·lr (one seed in a few hundred: 2.7 %
      // with eps 1e-8). eps 1e-2, still far below the entries that carry the update, makes that
      // map continuous: the worst of 302 seeds is then 2.4e-4.
      {{"--optimizer", "soap", "--precondition-frequency", "2", "--lr", "0.05", "--eps", "1e-2"},
       1e-3},
  };
  const io::NpyArray start = io::read_npy(param);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.flags[1]);
    std::vector<std::string> common = c.flags;
    common.insert(common.end(), {"--param", param});
    for (const std::string& g : grads) common.insert(common.end(), {"--grad", g});
    auto with = [&](const std::string& backend, const std::string& out) {
      std::vector<std::string> args = common;
      args.insert(args.end(), {"--backend", backend, "--out", file(out), "--out-dtype", "float64"});
      return args;
    };
    const ProcessResult ref = bench(with("reference", "ref.npy"));
    ASSERT_EQ(ref.exit_code, 0) << ref.err;
    const ProcessResult cpu = bench(with("cpu", "cpu.npy"));
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const io::NpyArray r = io::read_npy(file("ref.npy"));
    const io::NpyArray x = io::read_npy(file("cpu.npy"));
    ASSERT_EQ(r.shape, start.shape);
    EXPECT_EQ(r.dtype, io::NpyDType::kFloat64);
    EXPECT_LE(update_error(start, x, r), c.budget);
    EXPECT_GT(update_error(start, start, r), 0.99) << "the reference must have moved the param";
  }
}

TEST_F(StepCommandTest, KeepsTheParametersDtypeAndShape) {
  const std::string param = write_random("p.npy", {7}, io::NpyDType::kFloat64);
  const std::string grad = write_random("g.npy", {7}, io::NpyDType::kFloat64);
  const ProcessResult r =
      bench({"--optimizer", "adamw", "--param", param, "--grad", grad, "--out", file("out.npy")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const io::NpyArray out = io::read_npy(file("out.npy"));
  EXPECT_EQ(out.dtype, io::NpyDType::kFloat64);
  EXPECT_EQ(out.shape, std::vector<std::int64_t>{7});
}

// Finite gradients whose fp32 statistics overflow used to end Shampoo and SOAP in an internal
// error (exit 3, a LAPACK ssyevd status) at magnitude ~1e19. Every element at 0.9x the limit
// fp32_gradient_limit states (the worst case for the sums of squares) must step to a finite
// result; one element at 1.1x it must be refused up front, naming the limit.
TEST_F(StepCommandTest, HugeGradientsStepBelowTheFp32LimitAndAreRefusedAboveIt) {
  const std::vector<std::int64_t> shape = {6, 8};
  const std::string param = write_random("p.npy", shape);
  std::bernoulli_distribution sign(0.5);
  for (const auto kind :
       {optim::OptimizerKind::kShampoo, optim::OptimizerKind::kSoap, optim::OptimizerKind::kMuon}) {
    optim::OptimizerSpec spec;
    spec.kind = kind;
    const std::string name(optim::to_string(kind));
    SCOPED_TRACE(name);
    const double limit = optim::fp32_gradient_limit(spec, optim::Shape{6, 8});
    io::NpyArray grad = io::read_npy(param);
    for (double& v : grad.values) v = static_cast<float>((sign(rng_) ? 0.9 : -0.9) * limit);
    io::write_npy(file("huge.npy"), grad);
    const ProcessResult ok = bench({"--optimizer", name, "--param", param, "--grad",
                                    file("huge.npy"), "--out", file("out.npy")});
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    for (const double v : io::read_npy(file("out.npy")).values) ASSERT_TRUE(std::isfinite(v));

    grad.values[5] = static_cast<float>(1.1 * limit);
    io::write_npy(file("too-huge.npy"), grad);
    const ProcessResult refused = bench({"--optimizer", name, "--param", param, "--grad",
                                         file("too-huge.npy"), "--out", file("refused.npy")});
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_NE(refused.err.find("gradient element 5"), std::string::npos) << refused.err;
    EXPECT_NE(refused.err.find("the largest magnitude an fp32 " + name + " step"),
              std::string::npos)
        << refused.err;
    EXPECT_FALSE(fs::exists(file("refused.npy")));
  }
}

TEST_F(StepCommandTest, BadInputExitsTwoNamingTheProblemAndWritesNothing) {
  const std::string param = write_random("p.npy", {6, 8});
  const std::string grad = write_random("g.npy", {6, 8});
  const std::string wrong_shape = write_random("g_shape.npy", {8, 6});
  const std::string vector = write_random("v.npy", {48});
  io::NpyArray nan_grad = io::read_npy(grad);
  nan_grad.values[13] = std::nan("");
  io::write_npy(file("g_nan.npy"), nan_grad);
  io::NpyArray ints = io::read_npy(grad);  // re-encode with an integer dtype by hand
  const std::string float_bytes = io::encode_npy(ints);
  const std::size_t descr = float_bytes.find("<f4");
  ASSERT_NE(descr, std::string::npos);
  const std::string int_bytes =
      float_bytes.substr(0, descr) + "<i4" + float_bytes.substr(descr + 3);
  std::FILE* f = std::fopen(file("g_int.npy").c_str(), "wb");
  std::fwrite(int_bytes.data(), 1, int_bytes.size(), f);
  std::fclose(f);

  const std::string out = file("out.npy");
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--optimizer", "muon", "--param", param, "--grad", wrong_shape, "--out", out},
       "does not match"},
      {{"--optimizer", "muon", "--param", param, "--grad", file("g_nan.npy"), "--out", out},
       "element 13 is nan"},
      {{"--optimizer", "muon", "--param", param, "--grad", file("g_int.npy"), "--out", out},
       "dtype '<i4'"},
      {{"--optimizer", "muon", "--param", vector, "--grad", vector, "--out", out}, "2-D"},
      {{"--optimizer", "soap", "--ns-steps", "3", "--param", param, "--grad", grad, "--out", out},
       "--ns-steps does not apply to --optimizer soap"},
      {{"--optimizer", "lion", "--param", param, "--grad", grad, "--out", out}, "lion"},
      {{"--optimizer", "muon", "--ns-coefficients", "cubic", "--param", param, "--grad", grad,
        "--out", out},
       "cubic"},
      {{"--optimizer", "muon", "--lr", "-1", "--param", param, "--grad", grad, "--out", out}, "lr"},
      {{"--optimizer", "muon", "--param", file("missing.npy"), "--grad", grad, "--out", out},
       "missing.npy"},
      {{"--optimizer", "muon", "--param", param, "--grad", grad, "--out", file("no-dir/out.npy")},
       "no-dir"},
  };
  for (const auto& c : cases) {
    const ProcessResult r = bench(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "expected '" << c.message << "' in:\n"
                                                        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(out)) << "nothing may be written on bad input";
  }
}

}  // namespace
}  // namespace canzona::testing
