// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Start-up agreement under mpiexec: every rank throws the same AgreedError when one rank failed
// to prepare or ranks disagree on an option, and returns when they agree. Also the collective
// timeout's origin labels.
#include <canzona/comm/agreement.hpp>
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/timeout.hpp>
#include <canzona/core/error.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace canzona::comm;  // NOLINT(google-build-using-namespace): test brevity

std::string agreement_error(Communicator& world, const RunOptions& options,
                            std::exception_ptr local = nullptr) {
  try {
    agree_on_start(world, options, local);
  } catch (const AgreedError& e) {
    return std::to_string(e.exit_code()) + ": " + e.what();
  }
  return "agreed";
}

TEST(AgreementTest, RanksThatAgreeGoOn) {
  const auto world = MpiCommunicator::world();
  EXPECT_EQ(agreement_error(*world, {{"--steps", "3"}, {"--model", "qwen3-8b"}}), "agreed");
  EXPECT_EQ(agreement_error(*world, {}), "agreed");
}

TEST(AgreementTest, EveryRankNamesTheOptionTheyDisagreeOn) {
  const auto world = MpiCommunicator::world();
  if (world->size() < 2) GTEST_SKIP() << "needs two ranks";
  const std::string steps = world->rank() == 1 ? "4" : "3";
  EXPECT_EQ(agreement_error(*world, {{"--model", "m"}, {"--steps", steps}}),
            "2: ranks disagree on --steps: rank 0 has 3, rank 1 has 4; every rank of the job must "
            "be given the same --steps");
}

TEST(AgreementTest, EveryRankReportsTheRankThatFailedToPrepare) {
  const auto world = MpiCommunicator::world();
  if (world->size() < 2) GTEST_SKIP() << "needs two ranks";
  const std::exception_ptr local =
      world->rank() == 1
          ? std::make_exception_ptr(canzona::ConfigError("model spec 'x.json': missing"))
          : nullptr;
  EXPECT_EQ(agreement_error(*world, {{"--steps", "3"}}, local),
            "2: rank 1 of " + std::to_string(world->size()) +
                " failed to start: model spec 'x.json': missing");
  const std::exception_ptr everywhere = std::make_exception_ptr(std::runtime_error("no GPU"));
  EXPECT_EQ(agreement_error(*world, {{"--steps", "3"}}, everywhere),
            "3: every rank failed to start: no GPU");
}

TEST(AgreementTest, RequestsNameTheirCollectiveGroupAndRank) {
  const auto world = MpiCommunicator::world();
  double in = 1, out = 0;
  Request request = world->all_reduce(&in, &out, 1, DataType::kFloat64, ReduceOp::kSum);
  EXPECT_EQ(request.origin().describe(), "all_reduce on mpi group 'world' (rank " +
                                             std::to_string(world->rank()) + " of " +
                                             std::to_string(world->size()) + ")");
  request.wait();
  EXPECT_EQ(out, world->size());
}

}  // namespace
