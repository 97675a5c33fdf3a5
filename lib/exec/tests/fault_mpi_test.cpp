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

#include <dirent.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using canzona::testing::ProcessResult;

// Processes whose command line carries `tag` (the driver's --tag), from /proc.
std::vector<int> processes_tagged(const std::string& tag) {
  std::vector<int> pids;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* entry = readdir(proc)) {
    const std::string name = entry->d_name;
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream cmdline("/proc/" + name + "/cmdline", std::ios::binary);
    std::stringstream text;
    text << cmdline.rdbuf();
    if (text.str().find(tag) != std::string::npos) pids.push_back(std::stoi(name));
  }
  closedir(proc);
  return pids;
}

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Open MPI refuses to start as root without these (CI runs as root), and yields the core of
    // an idle rank to its peer on an oversubscribed machine.
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
  }

  ProcessResult run_job(const std::string& fault, const std::vector<std::string>& extra = {}) {
    tag_ = "canzona-fault-" + std::to_string(canzona::testing::test_seed()) + "-" + fault;
    std::vector<std::string> args = {"-n",      "2",   "--oversubscribe", CANZONA_FAULT_DRIVER,
                                     "--fault", fault, "--timeout",       "3",
                                     "--tag",   tag_};
    args.insert(args.end(), extra.begin(), extra.end());
    // A hang would be the bug under test: the watchdog ends it and the test reports it.
    return canzona::testing::run_process(CANZONA_MPIEXEC, args, kWatchdogSeconds);
  }

  // Every process of the job has exited (mpiexec may reap its children just after it returns).
  void expect_no_orphans() {
    std::vector<int> left;
    for (int i = 0; i < 50; ++i) {
      left = processes_tagged(tag_);
      if (left.empty()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << left.size() << " process(es) of the job outlived it, e.g. pid " << left[0];
  }

  static void expect_contains(const ProcessResult& r, const std::string& fragment) {
    EXPECT_NE((r.out + r.err).find(fragment), std::string::npos)
        << "missing '" << fragment << "'\nstdout:\n"
        << r.out << "\nstderr:\n"
        << r.err;
  }

  static constexpr double kWatchdogSeconds = 60;
  // "Within seconds": start-up of two ranks on a busy 2-core machine, plus the 3 s timeout.
  static constexpr double kPromptSeconds = 30;
  std::string tag_;
};

TEST_F(FaultTest, HealthyJobSucceeds) {
  const ProcessResult r = run_job("none");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r, "fault driver: 3 steps done");
  expect_no_orphans();
}

TEST_F(FaultTest, RankThatThrowsMidStepEndsTheJob) {
  const ProcessResult r = run_job("throw");
  ASSERT_FALSE(r.timed_out) << "the job hung";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(r.seconds, kPromptSeconds);
  expect_contains(r, "error on rank 1 of 2");
  expect_contains(r, "injected failure at step 1");
  expect_no_orphans();
}

TEST_F(FaultTest, RankKilledBySignalEndsTheJob) {
  const ProcessResult r = run_job("kill");
  ASSERT_FALSE(r.timed_out) << "the job hung";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(r.seconds, kPromptSeconds);
  expect_contains(r, "rank 1");
  expect_contains(r, "signal 9");
  expect_no_orphans();
}

TEST_F(FaultTest, StalledRankTimesOutAndEndsTheJob) {
  const ProcessResult r = run_job("stop");
  ASSERT_FALSE(r.timed_out) << "the job hung";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_LT(r.seconds, kPromptSeconds);
  expect_contains(r, "error on rank 0 of 2");
  expect_contains(r, "collective timeout");
  expect_contains(r, "did not complete within 3 s");
  expect_no_orphans();
}

TEST_F(FaultTest, BadInputOnOneRankStopsEveryRankBeforeTheFirstStep) {
  const ProcessResult r = run_job("bad-input");
  ASSERT_FALSE(r.timed_out) << "the job hung";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.seconds, kPromptSeconds);
  expect_contains(r, "rank 1 of 2 failed to start: model spec 'missing-on-this-rank.json'");
  EXPECT_EQ(r.out.find("steps done"), std::string::npos);
  expect_no_orphans();
}

TEST_F(FaultTest, RankGivenAnotherModelIsRefusedAtStartUp) {
  const ProcessResult r = run_job("model");
  ASSERT_FALSE(r.timed_out) << "the job hung";
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r, "ranks disagree on --model: rank 0 has");
  expect_contains(r, "\"num_hidden_layers\":3");
  expect_no_orphans();
}

TEST_F(FaultTest, RankGivenAnotherStepCountIsRefusedAtStartUp) {
  const ProcessResult r = run_job("steps");
  ASSERT_FALSE(r.timed_out) << "the job hung";
  EXPECT_EQ(r.exit_code, 2);
  expect_contains(r, "ranks disagree on --steps: rank 0 has 3, rank 1 has 4");
  expect_no_orphans();
}

}  // namespace
