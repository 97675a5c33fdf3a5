// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "child_jobs.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>

namespace canzona::harness {

ScratchDir::ScratchDir(std::string_view prefix) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / fmt::format("{}-XXXXXX", prefix)).string();
  if (mkdtemp(pattern.data()) == nullptr) throw Error("cannot create a temporary folder");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  if (!keep_) std::filesystem::remove_all(path_, ignored);
}

ChildOptions interruptible(const std::vector<std::string>& env) {
  ChildOptions options;
  options.extra_env = env;
  options.forward_interrupts = true;
  return options;
}

namespace {

const char* signal_name(int signal_number) {
  return signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "SIGHUP";
}

}  // namespace

void throw_if_interrupted(const ChildExit& child, std::string_view command) {
  if (child.interrupted_by == 0) return;
  throw InterruptedError(
      fmt::format("{}: {} was passed on to the job it started, which has ended; nothing was "
                  "written and the scratch folder was removed",
                  command, signal_name(child.interrupted_by)),
      child.interrupted_by);
}

void throw_if_interrupt_pending(std::string_view command) {
  const int signal_number = InterruptScope::pending();
  if (signal_number == 0) return;
  throw InterruptedError(fmt::format("{}: {} arrived between its jobs; nothing was written and "
                                     "the scratch folder was removed",
                                     command, signal_name(signal_number)),
                         signal_number);
}

}  // namespace canzona::harness
