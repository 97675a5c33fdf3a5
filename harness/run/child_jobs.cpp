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

void throw_if_interrupted(const ChildExit& child, std::string_view command) {
  if (child.interrupted_by == 0) return;
  const char* name = child.interrupted_by == SIGINT    ? "SIGINT"
                     : child.interrupted_by == SIGTERM ? "SIGTERM"
                                                       : "SIGHUP";
  throw InterruptedError(
      fmt::format("{}: {} was passed on to the job it started, which has ended; nothing was "
                  "written and the scratch folder was removed",
                  command, name),
      child.interrupted_by);
}

}  // namespace canzona::harness
