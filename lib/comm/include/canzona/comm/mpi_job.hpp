// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// main() of a multi-rank program under mpirun: a failure on any rank ends the whole job with a
// message naming the rank and the cause, never a hang. The one job life cycle of every multi-rank
// entry point: the suites (suites/common/bench_main.cpp), canzona_validate_projection and the
// executor's fault driver.
#pragma once

#include "canzona/comm/mpi_communicator.hpp"

#include <functional>

namespace canzona::comm {

/// Initialises MPI, builds the world communicator and runs `body` on this rank; returns the exit
/// code for main(). `body` returns the same code on every rank and throws for a local failure.
///  - AgreedError (agreement.hpp; thrown by every rank together): rank 0 prints "error: ..."
///    and every rank exits with its code, without an abort.
///  - Any other exception: this rank prints "error on rank R of N (host H, pid P): ..." and
///    calls MPI_Abort with 2 (ConfigError: bad input) or 3 (anything else), which ends every
///    rank, including those blocked in a collective. A job of one rank has no one to wait for
///    it: it prints "error: ..." (ConfigError, code 2) or "internal error: ..." (code 3) and
///    returns the code.
///  - A stalled peer: the others' collectives time out (comm::collective_timeout()) and abort.
/// Before MPI_Finalize every rank passes a barrier bounded by the collective timeout, so a rank
/// that stopped late is reported instead of hanging the finalisation. Standard output is
/// flushed and a write error fails the run (canzona::finish_standard_output).
int run_mpi_job(int argc, char** argv, const std::function<int(MpiCommunicator& world)>& body);

/// This rank's failure as the job's end: prints "error on rank R of N (host H, pid P): <what>"
/// and calls MPI_Abort(MPI_COMM_WORLD, exit_code). For code that cannot return to run_mpi_job.
[[noreturn]] void abort_job(const char* what, int exit_code) noexcept;

}  // namespace canzona::comm
