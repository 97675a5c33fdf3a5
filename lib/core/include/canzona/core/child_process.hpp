// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Runs another program (a suite, mpirun, the executable under test) without a shell and streams
// what it writes: `canzona-bench run` shows progress from it, tests capture it. The one place
// the project starts processes.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona {

/// Receives a child's output as it arrives, in chunks (not necessarily whole lines).
struct ChildOutput {
  std::function<void(std::string_view)> on_stdout;
  std::function<void(std::string_view)> on_stderr;
};

struct ChildOptions {
  /// "NAME=value" entries added to this process's environment (replacing the same name), for
  /// the child and everything it starts.
  std::vector<std::string> extra_env;
  /// With a limit > 0 the child runs in its own process group, which is killed (SIGKILL) when
  /// the limit passes: for programs that must not hang (fault tests of multi-rank jobs).
  double time_limit_s = 0;
  /// The child runs in its own process group; SIGINT, SIGTERM or SIGHUP sent to this process
  /// while it waits are passed on to that group (a launcher and every rank it started), which is
  /// killed (SIGKILL) when it has not ended `interrupt_grace_s` later. ChildExit::interrupted_by
  /// names the signal. For programs that start jobs (`canzona-bench run` and mpirun).
  bool forward_interrupts = false;
  double interrupt_grace_s = 10;
};

struct ChildExit {
  int exit_code = -1;  ///< the exit status; 128 + the signal when a signal killed it
  bool timed_out = false;
  int interrupted_by = 0;  ///< forward_interrupts: the signal passed on to the child, else 0
};

/// While one lives (they nest), SIGINT, SIGTERM and SIGHUP do not end this process: they are
/// noted, passed on by run_child to a child started with forward_interrupts, and pending() says
/// which arrived, so a command that starts jobs can end itself cleanly wherever the signal came
/// (between two children, while it writes). The previous handlers return with the outermost
/// scope; a signal the process ignores stays ignored.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  /// The interrupt that arrived while a scope lived, or 0.
  static int pending();
};

/// Runs `argv` (argv[0] is looked up in PATH unless it contains a '/') and waits for it. Both
/// output streams are drained together, so a chatty one cannot block the child. ConfigError
/// when the program cannot be started. With forward_interrupts and an interrupt already pending,
/// nothing is started and the result says interrupted_by.
ChildExit run_child(const std::vector<std::string>& argv, const ChildOptions& options,
                    const ChildOutput& output);

/// Cuts a stream of chunks into lines (without the newline) for a callback.
class LineSplitter {
 public:
  explicit LineSplitter(std::function<void(std::string_view)> on_line)
      : on_line_(std::move(on_line)) {}
  void feed(std::string_view chunk);
  /// Passes on a last line that had no newline.
  void flush();

 private:
  std::function<void(std::string_view)> on_line_;
  std::string pending_;
};

}  // namespace canzona
