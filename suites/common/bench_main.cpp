// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one main() of every suite: checks and parses Google Benchmark flags, records provenance in
// the JSON context (git sha, build type, backends, device), registers the suite and runs it.
// Every flag error, an empty selection and an unwritable output are exit code 2 with a message;
// an existing --benchmark_out file is replaced only by a complete run.
#include "benchmark_args.hpp"
#include "suite.hpp"
#include "suite_flags.hpp"

#include <canzona/config.hpp>
#include <canzona/core/build_info.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/standard_output.hpp>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <memory>
#include <string>

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;

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

int run(int argc, char** argv) {
  canzona::bench::take_suite_flags(argc, argv);
  canzona::bench::BenchmarkArgs args(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return kExitUsage;
  add_provenance_context();
  canzona::bench::register_suite();
  if (const std::string unused = canzona::bench::unused_suite_flags(); !unused.empty()) {
    throw canzona::ConfigError("this suite has no flag " + unused);
  }
  const std::size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  args.commit(ran);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int code = 0;
  try {
    code = run(argc, argv);
  } catch (const canzona::ConfigError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    code = kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    code = kExitInternal;
  }
  return canzona::finish_standard_output(code, kExitUsage);
}
