// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// A command that starts jobs holds an InterruptScope from its start: an interrupt that arrives
// between two children is noted (not fatal), keeps the next child from starting, and is still
// pending when the command checks before writing.
#include <canzona/core/child_process.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>

namespace canzona {
namespace {

TEST(InterruptScopeTest, ASignalBetweenChildrenIsNotedAndStopsTheNextOne) {
  const std::filesystem::path marker = std::filesystem::temp_directory_path() /
                                       ("canzona-interrupt-scope-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  {
    InterruptScope command;
    EXPECT_EQ(InterruptScope::pending(), 0);
    ASSERT_EQ(std::raise(SIGTERM), 0);  // would end the test process without the scope
    EXPECT_EQ(InterruptScope::pending(), SIGTERM);
    {
      InterruptScope nested;  // run_child's own scope: the pending signal stays
      EXPECT_EQ(InterruptScope::pending(), SIGTERM);
    }
    ChildOptions options;
    options.forward_interrupts = true;
    const ChildExit child = run_child({"sh", "-c", "touch '" + marker.string() + "'"}, options, {});
    EXPECT_EQ(child.interrupted_by, SIGTERM);
    EXPECT_EQ(child.exit_code, 128 + SIGTERM);
    EXPECT_FALSE(std::filesystem::exists(marker)) << "the child started after the interrupt";
  }
  // The previous handler is back, and the next command starts with nothing pending.
  struct sigaction current {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &current), 0);
  EXPECT_EQ(current.sa_handler, SIG_DFL);
  InterruptScope next;
  EXPECT_EQ(InterruptScope::pending(), 0);
}

}  // namespace
}  // namespace canzona
