// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The canzona-bench command line, callable in-process (tests) and from main().
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace canzona::harness {

/// Exit codes of canzona-bench (nccl-tests style gate: non-zero means "do not ship").
enum ExitCode : int {
  kExitOk = 0,
  kExitRegression = 1,  ///< a comparison found a regression or a missing benchmark
  kExitUsage = 2,       ///< bad flags, model spec, parallel config or input file, or an output
                        ///< destination that cannot take the output (full disk, device)
  kExitInternal = 3,    ///< a bug or a runtime failure (CUDA, NCCL, MPI)
};

/// Parses `args` (without the program name) and runs the subcommand. Results go to `out`,
/// diagnostics to `err`; nothing is printed to `out` unless the command succeeds.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canzona::harness
