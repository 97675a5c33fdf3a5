// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Runs a program the way a user does and captures what it printed and how it exited, so the CLI
// is tested as a black box (exit codes, messages, no stray output).
#pragma once

#include <string>
#include <vector>

namespace canzona::testing {

struct ProcessResult {
  int exit_code = -1;  ///< the program's exit status; 128 + signal when killed by a signal
  std::string out;     ///< everything written to stdout
  std::string err;     ///< everything written to stderr
};

/// Runs `program` with `args` (no shell) and `env` ("NAME=value") added to the environment,
/// waits for it and returns its output and exit code.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          const std::vector<std::string>& env = {});

}  // namespace canzona::testing
