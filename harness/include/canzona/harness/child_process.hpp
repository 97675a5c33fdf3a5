// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Runs another program (a suite, mpirun) without a shell and streams what it writes, so a caller
// can show progress while it runs and keep its output.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

/// Receives a child's output as it arrives, in chunks (not necessarily whole lines).
struct ChildOutput {
  std::function<void(std::string_view)> on_stdout;
  std::function<void(std::string_view)> on_stderr;
};

/// Runs `argv` (argv[0] is looked up in PATH unless it contains a '/') with `extra_env`
/// ("NAME=value" entries, overriding this process's environment) and waits for it. Both output
/// streams are drained together, so a chatty one cannot block the child. Returns its exit status,
/// 128 + the signal when a signal killed it. ConfigError when the program cannot be started.
int run_child(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
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

}  // namespace canzona::harness
