// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What the commands that start other processes (`run` its suites' jobs, `ab` the two sides'
// runs) share: a scratch folder that goes with the stack, children an interrupt reaches, and
// an interrupt that ends the command.
#pragma once

#include <canzona/core/child_process.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace canzona::harness {

/// A temporary folder for a child's output, removed with everything in it.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// Leaves the folder in place (for a look at what the child wrote).
  void keep() { keep_ = true; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

/// A child (a launcher and every rank it starts, or another canzona-bench) in its own process
/// group, which an interrupt of this process (Ctrl-C, a CI system's SIGTERM on timeout) reaches
/// too: passed on, waited for (killed after a grace period), and never left running.
ChildOptions interruptible(const std::vector<std::string>& env);

/// An interrupted child ends the command: throws InterruptedError saying that `command` passed
/// the signal on, that nothing was written and that the scratch folder was removed.
void throw_if_interrupted(const ChildExit& child, std::string_view command);

/// The same for an interrupt that came while no child ran (the command holds an InterruptScope
/// from its start): called before anything is written.
void throw_if_interrupt_pending(std::string_view command);

}  // namespace canzona::harness
