// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// One process of a suite run that may span many ranks (`mpirun -np N <suite>`): MPI start-up and
// shutdown, reporting once per job (rank 0 prints and writes --benchmark_out, the other ranks'
// reporters are silenced), and ending the whole job when one rank fails.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>

namespace canzona::bench {

/// Lives for the whole run of a suite on this rank, inside comm::run_mpi_job (which starts and
/// ends MPI; a process started without a launcher is a job of one rank). On destruction it runs
/// the hooks given to on_job_end, except when an exception leaves it in a job of several ranks
/// (the job is then ended by MPI_Abort). Without MPI every process is a job of one rank.
class RankSession {
 public:
  /// Call before Google Benchmark sees argv: on every rank but 0 it removes --benchmark_out and
  /// --benchmark_out_format, so only rank 0 writes the output file.
  RankSession(int& argc, char**& argv);
  ~RankSession();
  RankSession(const RankSession&) = delete;
  RankSession& operator=(const RankSession&) = delete;

  /// The display reporter to pass to benchmark::RunSpecifiedBenchmarks: nullptr on rank 0 (Google
  /// Benchmark's own, as chosen by --benchmark_format), a reporter that prints nothing elsewhere.
  benchmark::BenchmarkReporter* display_reporter();

  /// Adds to the JSON context (results/SCHEMA.md): `mpi_library` (MPI_Get_library_version's
  /// first line, or "none"), `ranks`, `nodes` (distinct hosts of the ranks) and `gpus_per_node`
  /// (CUDA devices rank 0 sees). Collective.
  void add_context() const;

  /// How many benchmarks the whole job ran, given this rank's count: rank 0 alone runs the
  /// projected rows, so a filter that selects only those runs none on the other ranks, and an
  /// empty selection is a job-wide verdict. Collective.
  std::size_t job_benchmark_count(std::size_t mine) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// This process's rank in the job and the job's size (0 and 1 before a RankSession exists).
int job_rank();
int job_size();
/// This process's rank among the job's ranks on its host (0 before a RankSession exists): the
/// CUDA device a GPU rank uses, as comm::NcclCommunicator::create chooses it.
int job_local_rank();

/// Runs `hook` when the RankSession ends, before MPI is finalised (hooks run last-in first-out):
/// where a suite releases communicators it keeps for the whole run.
void on_job_end(std::function<void()> hook);

/// Ends the whole job because this rank cannot go on: under MPI comm::abort_job (prints "error on
/// rank R of N (host H, pid P): <message>" and calls MPI_Abort: other ranks may be waiting for
/// this one in a collective, so returning an error would hang them), without MPI "error:
/// <message>" and std::exit.
[[noreturn]] void abort_job(std::string_view message, int exit_code);

}  // namespace canzona::bench
