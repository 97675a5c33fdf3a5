// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// canzona_validate_projection under mpiexec when one rank is set up differently from the others
// (mpiexec's "A : B" form starts rank 0 and rank 1 with their own flags or working directory).
// These used to hang: a rank whose model file was missing returned exit 2 alone while the other
// waited forever in a collective, and ranks given different --steps hung after rank 0 printed its
// table. Each must now stop the whole job before the calibration, with one message naming the
// rank or the option, exit code 2 and no process left behind.
#include <canzona/model/json.hpp>
#include <canzona/testing/run_process.hpp>
#include <canzona/testing/seed.hpp>
#include <canzona/testing/tiny_model.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using canzona::testing::ProcessResult;

class ValidateProjectionFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    tag_ = "canzona-validate-" + std::to_string(canzona::testing::test_seed()) + "-" + name;
    dir_ = fs::temp_directory_path() / tag_;
    fs::create_directories(dir_ / "with-model");
    fs::create_directories(dir_ / "without-model");
    std::ofstream(dir_ / "with-model" / "tiny.json")
        << nlohmann::json(canzona::testing::tiny_dense_model(
                              {.heads = 4, .kv_heads = 2, .head_dim = 16, .vocab = 256}, "tiny"))
               .dump();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The flags of one rank: a quick run of the tiny model (small calibration, `steps` timed steps).
  static std::vector<std::string> rank(const std::string& dir, const std::string& steps,
                                       std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"-n",
                                     "1",
                                     "--wdir",
                                     dir,
                                     CANZONA_VALIDATE_PROJECTION,
                                     "--model",
                                     "tiny.json",
                                     "--strategy",
                                     "canzona",
                                     "--warmup",
                                     "1",
                                     "--steps",
                                     steps,
                                     "--measure-steps",
                                     "1",
                                     "--calibration-sizes",
                                     "1024,262144"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  // mpiexec with rank 0's and rank 1's flags.
  ProcessResult run(const std::vector<std::string>& rank0, const std::vector<std::string>& rank1) {
    std::vector<std::string> args = {"--oversubscribe"};
    args.insert(args.end(), rank0.begin(), rank0.end());
    args.push_back(":");
    args.insert(args.end(), rank1.begin(), rank1.end());
    return canzona::testing::TaggedMpiJob(tag_).run(CANZONA_MPIEXEC, args, kWatchdogSeconds);
  }

  // Stopped at start-up: exit 2, the message, no table, no survivors, promptly.
  void expect_refused_at_start(const ProcessResult& r, const std::string& fragment) {
    ASSERT_FALSE(r.timed_out) << "the job hung\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(fragment), std::string::npos) << "missing '" << fragment << "' in:\n"
                                                       << r.err;
    EXPECT_EQ(r.out.find("VALIDATION"), std::string::npos) << "a rank measured anyway:\n" << r.out;
    EXPECT_LT(r.seconds, kPromptSeconds);
    const std::vector<int> left = canzona::testing::TaggedMpiJob(tag_).wait_for_survivors();
    EXPECT_TRUE(left.empty()) << left.size() << " process(es) of the job outlived it, e.g. pid "
                              << left.front();
  }

  std::string with_model() const { return (dir_ / "with-model").string(); }
  std::string without_model() const { return (dir_ / "without-model").string(); }

  static constexpr double kWatchdogSeconds = 120;
  static constexpr double kPromptSeconds = 30;  // two ranks starting on a busy 2-core machine
  std::string tag_;
  fs::path dir_;
};

TEST_F(ValidateProjectionFaultTest, SameFlagsOnEveryRankRunAndWriteTheReport) {
  const std::string out = (dir_ / "report.json").string();
  const ProcessResult r =
      run(rank(with_model(), "1", {"--out", out}), rank(with_model(), "1", {"--out", out}));
  ASSERT_FALSE(r.timed_out) << "the job hung\n" << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("VALIDATION"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_regular_file(out));
}

TEST_F(ValidateProjectionFaultTest, ModelFileMissingOnOneRankStopsTheJob) {
  const ProcessResult r = run(rank(with_model(), "1"), rank(without_model(), "1"));
  expect_refused_at_start(r, "rank 1 of 2 failed to start: model spec 'tiny.json'");
}

TEST_F(ValidateProjectionFaultTest, DifferentStepCountsAreRefusedBeforeMeasuring) {
  const ProcessResult r = run(rank(with_model(), "1"), rank(with_model(), "2"));
  expect_refused_at_start(r, "ranks disagree on --steps: rank 0 has 1, rank 1 has 2");
}

TEST_F(ValidateProjectionFaultTest, ABadFlagOnOneRankStopsTheJob) {
  const ProcessResult r = run(rank(with_model(), "1"), rank(with_model(), "1", {"--tp", "two"}));
  expect_refused_at_start(r, "rank 1 of 2 failed to start: ");
  EXPECT_NE(r.err.find("--tp"), std::string::npos) << r.err;
}

}  // namespace
