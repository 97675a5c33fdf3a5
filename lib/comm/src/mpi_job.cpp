// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/comm/mpi_job.hpp"

#include "canzona/comm/agreement.hpp"

#include <canzona/core/error.hpp>
#include <canzona/core/standard_output.hpp>

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>

namespace canzona::comm {

void abort_job(const char* what, int exit_code) noexcept {
  int rank = -1;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  std::fflush(stdout);
  std::fprintf(stderr, "error on rank %d of %d (host %s, pid %d): %s\n", rank, size, host,
               static_cast<int>(getpid()), what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; this is for the compiler and odd MPIs
}

namespace {

// This rank's failure: the whole job's end (MPI_Abort), or in a job of one rank its exit code.
int fail(const char* what, const char* kind, int exit_code) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) abort_job(what, exit_code);
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s\n", kind, what);
  return exit_code;
}

}  // namespace

int run_mpi_job(int argc, char** argv, const std::function<int(MpiCommunicator& world)>& body) {
  MpiRuntime runtime(&argc, &argv);
  int code = 0;
  try {
    std::unique_ptr<MpiCommunicator> world = MpiCommunicator::world();
    try {
      code = body(*world);
    } catch (const AgreedError& e) {
      if (world->rank() == 0) std::fprintf(stderr, "error: %s\n", e.what());
      code = e.exit_code();
    }
    // A rank that stopped after its last collective would otherwise hang MPI_Finalize.
    world->barrier().wait();
  } catch (const ConfigError& e) {
    code = fail(e.what(), "error", 2);
  } catch (const std::exception& e) {
    code = fail(e.what(), "internal error", 3);
  } catch (...) {
    code = fail("unknown exception", "internal error", 3);
  }
  return finish_standard_output(code, 2);
}

}  // namespace canzona::comm
