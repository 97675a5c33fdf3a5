// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Faults across ranks: a 2-rank executor job (canzona_fault_driver under mpiexec) with one rank
// that throws mid-step, is killed by a signal, stalls (SIGSTOP), has bad input, or is given a
// different model or step count. Each must end the whole job within seconds, with a non-zero
// exit, a message naming the rank and the cause, and no process of the job left behind.
#include <canzona/testing/run_process.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace {

using canzona::testing::ProcessResult;

class FaultTest : public ::testing::Test {
 protected:
  ProcessResult run_job(const std::string& fault) {
    job_.emplace("canzona-fault-" + std::to_string(canzona::testing::test_seed()) + "-" + fault);
    return job_->run(
        CANZONA_MPIEXEC,
        {"-n", "2", "--oversubscribe", CANZONA_FAULT_DRIVER, "--fault", fault, "--timeout", "3"},
        kWatchdogSeconds);
  }

  // The job ended by itself, promptly, with `exit_code` (any failure when nullopt), a message
  // with every fragment, and no process of it left behind.
  void expect_job_ended(const ProcessResult& r, std::optional<int> exit_code,
                        const std::vector<std::string>& fragments) {
    ASSERT_FALSE(r.timed_out) << "the job hung\nstdout:\n" << r.out << "\nstderr:\n" << r.err;
    if (exit_code) {
      EXPECT_EQ(r.exit_code, *exit_code) << r.err;
    } else {
      EXPECT_NE(r.exit_code, 0) << r.err;
    }
    EXPECT_LT(r.seconds, kPromptSeconds);
    for (const std::string& fragment : fragments) {
      EXPECT_NE((r.out + r.err).find(fragment), std::string::npos)
          << "missing '" << fragment << "'\nstdout:\n"
          << r.out << "\nstderr:\n"
          << r.err;
    }
    const std::vector<int> left = job_->wait_for_survivors();
    EXPECT_TRUE(left.empty()) << left.size() << " process(es) of the job outlived it, e.g. pid "
                              << left.front();
  }

  static constexpr double kWatchdogSeconds = 60;
  // "Within seconds": start-up of two ranks on a busy 2-core machine, plus the 3 s timeout.
  static constexpr double kPromptSeconds = 30;
  std::optional<canzona::testing::TaggedMpiJob> job_;
};

TEST_F(FaultTest, HealthyJobSucceeds) {
  const ProcessResult r = run_job("none");
  expect_job_ended(r, 0, {"fault driver: 3 steps done"});
}

TEST_F(FaultTest, RankThatThrowsMidStepEndsTheJob) {
  const ProcessResult r = run_job("throw");
  expect_job_ended(r, std::nullopt, {"error on rank 1 of 2", "injected failure at step 1"});
}

TEST_F(FaultTest, RankKilledBySignalEndsTheJob) {
  const ProcessResult r = run_job("kill");
  expect_job_ended(r, std::nullopt, {"rank 1", "signal 9"});
}

TEST_F(FaultTest, StalledRankTimesOutAndEndsTheJob) {
  const ProcessResult r = run_job("stop");
  expect_job_ended(r, std::nullopt,
                   {"error on rank 0 of 2", "collective timeout", "did not complete within 3 s"});
}

TEST_F(FaultTest, BadInputOnOneRankStopsEveryRankBeforeTheFirstStep) {
  const ProcessResult r = run_job("bad-input");
  expect_job_ended(r, 2, {"rank 1 of 2 failed to start: model spec 'missing-on-this-rank.json'"});
  EXPECT_EQ(r.out.find("steps done"), std::string::npos);
}

TEST_F(FaultTest, RankGivenAnotherModelIsRefusedAtStartUp) {
  const ProcessResult r = run_job("model");
  expect_job_ended(r, 2, {"ranks disagree on --model: rank 0 has", "\"num_hidden_layers\":3"});
}

TEST_F(FaultTest, RankGivenAnotherStepCountIsRefusedAtStartUp) {
  const ProcessResult r = run_job("steps");
  expect_job_ended(r, 2, {"ranks disagree on --steps: rank 0 has 3, rank 1 has 4"});
}

}  // namespace
