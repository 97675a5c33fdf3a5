// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Runs a program the way a user does and captures what it printed and how it exited, so the CLI
// is tested as a black box (exit codes, messages, no stray output).
#pragma once

#include <string>
#include <utility>
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
/// tests of multi-rank jobs). `environment` ("NAME=value" entries) is added to this process's
/// environment for the program and everything it starts.
ProcessResult run_process(const std::string& program, const std::vector<std::string>& args,
                          double time_limit_s = 0,
                          const std::vector<std::string>& environment = {});

/// A multi-rank job under mpiexec, for fault tests: every process of the job (mpiexec and each
/// rank) carries `tag` in its environment, so the test can check that none outlived the job.
class TaggedMpiJob {
 public:
  /// `tag` must be unique to the job (e.g. the test name and the seed).
  explicit TaggedMpiJob(std::string tag) : tag_(std::move(tag)) {}

  /// Runs `mpiexec args...` with a watchdog of `time_limit_s` (a hang is the bug under test),
  /// with Open MPI allowed to run as root (CI runs as root), idle ranks yielding their core on an
  /// oversubscribed machine, and one OpenBLAS thread per rank.
  ProcessResult run(const std::string& mpiexec, const std::vector<std::string>& args,
                    double time_limit_s) const;

  /// Pids of the live processes of the job (zombies excluded).
  std::vector<int> survivors() const;

  /// Waits up to 5 s for every process of the job to exit (mpiexec may reap its children just
  /// after it returns); the pids still alive then, empty when none.
  std::vector<int> wait_for_survivors() const;

 private:
  std::string tag_;
};

}  // namespace canzona::testing
