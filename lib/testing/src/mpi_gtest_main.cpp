// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// main() for GoogleTest executables run under mpiexec: every rank runs every test, rank 0 prints
// the usual report, other ranks print only their failures (tagged with the rank), and the exit
// code is the worst over all ranks so a failure on any rank fails the run. Rank 0 picks the test
// seed so every rank draws the same "fresh" inputs.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

// Prints failed assertions of a non-zero rank to stderr, prefixed with the rank.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 result.file_name() ? result.file_name() : "?", result.line_number(),
                 result.message());
  }

 private:
  int rank_;
};

std::uint64_t agree_on_seed(int rank) {
  std::uint64_t seed = 0;
  if (rank == 0) {
    const char* env = std::getenv("CANZONA_TEST_SEED");
    if (env != nullptr && *env != '\0') {
      seed = std::stoull(env);
    } else {
      std::random_device device;
      seed = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    }
  }
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return seed;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  // Set before any test calls canzona::testing::test_seed(), which reads it once.
  const std::string seed = std::to_string(agree_on_seed(rank));
  setenv("CANZONA_TEST_SEED", seed.c_str(), 1);

  ::testing::InitGoogleTest(&argc, argv);
  if (rank == 0) {
    std::printf("CANZONA_TEST_SEED=%s\n", seed.c_str());
  } else {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  const int local = RUN_ALL_TESTS();
  int worst = 0;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && worst != local) {
    std::printf("[  FAILED  ] a test failed on another rank (its failures are on stderr)\n");
  }
  MPI_Finalize();
  return worst;
}
