// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Scratch files (temporaries renamed into place only when their writer succeeds) must not outlive
// a process that a signal ends: a CI system that kills a job on timeout sends SIGTERM, a user
// presses Ctrl-C. While a ScratchFileGuard lives, its path is removed by the process's handler of
// SIGINT, SIGTERM and SIGHUP, which then lets the signal end the process as it would have (the
// exit status still names the signal: 130 / 143 in a shell).
#pragma once

#include <string>

namespace canzona::io {

class ScratchFileGuard {
 public:
  /// Registers `path` for removal on SIGINT, SIGTERM or SIGHUP (installing the handler once per
  /// process; a signal the process ignores stays ignored). At most 64 paths of up to 4095 bytes
  /// are registered at once; a path beyond that is not protected.
  explicit ScratchFileGuard(const std::string& path);
  /// Unregisters the path (it does not remove the file: its owner does, or has renamed it).
  ~ScratchFileGuard();
  ScratchFileGuard(const ScratchFileGuard&) = delete;
  ScratchFileGuard& operator=(const ScratchFileGuard&) = delete;

 private:
  int slot_ = -1;
};

/// How many paths are registered now (for tests).
int registered_scratch_files();

}  // namespace canzona::io
