// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one main() of every suite: checks and parses Google Benchmark flags, records provenance in
// the JSON context (git sha, build type, backends, device, MPI), registers the suite and runs it,
// on every rank of the job with rank 0 reporting (rank_session.hpp), inside comm::run_mpi_job.
// Every flag error, an empty selection and an unwritable output are exit code 2 with a message;
// an existing --benchmark_out file is replaced only by a complete run.
#include "benchmark_args.hpp"
#include "device_versions.hpp"
#include "rank_session.hpp"
#include "suite.hpp"
#include "suite_flags.hpp"

#include <canzona/bench/launch_report.hpp>
#include <canzona/config.hpp>
#include <canzona/core/build_info.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/standard_output.hpp>

#include <benchmark/benchmark.h>

#if CANZONA_WITH_MPI
#include <canzona/comm/mpi_job.hpp>
#endif

#include <cstdio>
#include <string>

namespace {

constexpr int kExitUsage = 2;

void add_provenance_context() {
  benchmark::AddCustomContext("canzona_version", CANZONA_VERSION);
  benchmark::AddCustomContext("canzona_git_sha", canzona::build_git_sha());
  benchmark::AddCustomContext("canzona_build_type", CANZONA_BUILD_TYPE);
  benchmark::AddCustomContext("canzona_config", std::string("cuda=") +
                                                    std::to_string(CANZONA_WITH_CUDA) +
                                                    ",nccl=" + std::to_string(CANZONA_WITH_NCCL) +
                                                    ",mpi=" + std::to_string(CANZONA_WITH_MPI) +
                                                    ",torch=" + std::to_string(CANZONA_WITH_TORCH));
  // Device probing happens only here, after flag parsing: never during static initialisation.
  const int gpus = canzona::cuda_device_count();
  benchmark::AddCustomContext("device_kind", canzona::device_kind());
  benchmark::AddCustomContext("gpu_count", std::to_string(gpus));
  benchmark::AddCustomContext("gpu_name", gpus > 0 ? canzona::cuda_device_name(0) : "none");
}

// The suite on this rank: flags, provenance, registration, the run; 0 or kExitUsage, the same on
// every rank. Errors are exceptions (ConfigError for bad input).
int run_suite(int argc, char** argv) {
  canzona::bench::take_suite_flags(argc, argv);
  // Before the flags are checked: on every rank but 0 the session drops --benchmark_out.
  canzona::bench::RankSession session(argc, argv);
  // `run` asks whether its launcher started this job, and on how many ranks, before it measures.
  if (canzona::bench::job_rank() == 0)
    canzona::bench::write_launch_report(canzona::bench::job_size());
  canzona::bench::BenchmarkArgs args(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitUsage;
  add_provenance_context();
  session.add_context();
  canzona::bench::add_device_versions_context();
  canzona::bench::register_suite();
  if (const std::string unused = canzona::bench::unused_suite_flags(); !unused.empty()) {
    throw canzona::ConfigError("this suite has no flag " + unused);
  }
  // With nothing selected Google Benchmark would say "Failed to match any benchmarks against
  // regex: ." (the filter it was handed); commit() names the user's filter instead.
  const std::size_t ran = canzona::bench::selected_case_count() == 0
                              ? 0
                              : benchmark::RunSpecifiedBenchmarks(session.display_reporter());
  benchmark::Shutdown();
  args.commit(session.job_benchmark_count(ran));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
#if CANZONA_WITH_MPI
  // The one multi-rank job life cycle (lib/comm): a failure on any rank ends the whole job.
  return canzona::comm::run_mpi_job(
      argc, argv, [&](canzona::comm::MpiCommunicator&) { return run_suite(argc, argv); });
#else
  int code = 0;
  try {
    code = run_suite(argc, argv);
  } catch (const canzona::ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    code = kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    code = 3;  // an internal error
  }
  return canzona::finish_standard_output(code, kExitUsage);
#endif
}
