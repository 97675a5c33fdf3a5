// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The Google Benchmark flags the shared main checks itself, because Google Benchmark 1.7.1
// accepts them silently: a filter that is not a regular expression or matches nothing, zero
// repetitions and an unknown output format all run nothing and exit 0, and --benchmark_out is
// truncated before the first benchmark runs. Here they are errors, and the output file is
// written to a temporary beside it and renamed over it only when the run succeeded. The filter
// is applied here too, by bench::NamePattern (RE2, linear time) when a suite registers its cases:
// Google Benchmark's own std::regex can backtrack for minutes on a pattern like `(.*.*)*X`.
#pragma once

#include <canzona/io/scratch_file.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace canzona::bench {

class BenchmarkArgs {
 public:
  /// Checks the --benchmark_* flags in argv (ConfigError naming the flag, the value and what
  /// would work) and redirects --benchmark_out=FILE to a temporary file beside FILE (argv is
  /// rewritten in place; FILE must be a regular file or not exist yet), which a signal that ends
  /// the process removes too. With --benchmark_list_tests, --benchmark_out is dropped from argv
  /// (argc shrinks): listing never opens an output. Call before benchmark::Initialize.
  BenchmarkArgs(int& argc, char** argv);
  /// Removes the temporary file unless commit() moved it into place.
  ~BenchmarkArgs();
  BenchmarkArgs(const BenchmarkArgs&) = delete;
  BenchmarkArgs& operator=(const BenchmarkArgs&) = delete;

  /// After a run that executed `benchmarks_run` benchmarks: ConfigError when none matched the
  /// filter (unless it only listed them); otherwise moves the temporary output over the
  /// --benchmark_out file (atomically).
  void commit(std::size_t benchmarks_run);

 private:
  std::string filter_ = ".";
  bool listing_ = false;  ///< --benchmark_list_tests=true: names are printed, nothing runs
  std::optional<std::filesystem::path> out_;             ///< --benchmark_out as given
  std::optional<std::filesystem::path> temporary_;       ///< where Google Benchmark writes it
  std::string out_argument_;                             ///< storage of the rewritten argv entry
  std::string filter_argument_;                          ///< "--benchmark_filter=." for Google
  std::unique_ptr<io::ScratchFileGuard> scratch_guard_;  ///< the temporary, for the signal handler
};

}  // namespace canzona::bench
