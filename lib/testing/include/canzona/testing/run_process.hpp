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
  double seconds = 0;  ///< wall time until the program exited
  bool timed_out = false;
};

/// Runs `program` with `args` (no shell), waits for it and returns its output and exit code.
/// With `time_limit_s` > 0 the program runs in its own process group, which is killed (SIGKILL)
/// when the limit passes; `timed_out` then says so. For programs that must not hang (fault
/// tests of multi-rank jobs).
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          double time_limit_s = 0);

}  // namespace canzona::testing
