// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A signal that ends the process removes its registered scratch files and still ends it.
#include <canzona/io/scratch_file.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace canzona::io {
namespace {

namespace fs = std::filesystem;

fs::path scratch_path(const std::string& name) {
  return fs::temp_directory_path() / ("canzona-scratch-" + std::to_string(::getpid()) + "-" + name);
}

TEST(ScratchFileTest, GuardsRegisterAndUnregister) {
  const int before = registered_scratch_files();
  {
    ScratchFileGuard a(scratch_path("a").string());
    ScratchFileGuard b(scratch_path("b").string());
    EXPECT_EQ(registered_scratch_files(), before + 2);
  }
  EXPECT_EQ(registered_scratch_files(), before);
}

// In a child: two scratch files, one of them released (its owner renamed it), then the signal.
// The guarded file is gone, the released one stays, and the child died of the signal.
void expect_signal_removes_scratch(int signal_number) {
  const fs::path guarded = scratch_path("guarded-" + std::to_string(signal_number));
  const fs::path released = scratch_path("released-" + std::to_string(signal_number));
  std::ofstream(guarded) << "partial";
  std::ofstream(released) << "kept";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ScratchFileGuard keep(guarded.string());
    { ScratchFileGuard gone(released.string()); }
    raise(signal_number);
    _exit(0);  // not reached: the signal ends the child
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the child exited with " << WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), signal_number);
  }
  EXPECT_FALSE(fs::exists(guarded)) << guarded;
  EXPECT_TRUE(fs::exists(released)) << released;
  fs::remove(guarded);
  fs::remove(released);
}

TEST(ScratchFileTest, SigtermRemovesScratchAndEndsTheProcess) {
  expect_signal_removes_scratch(SIGTERM);
}

TEST(ScratchFileTest, SigintRemovesScratchAndEndsTheProcess) {
  expect_signal_removes_scratch(SIGINT);
}

}  // namespace
}  // namespace canzona::io
