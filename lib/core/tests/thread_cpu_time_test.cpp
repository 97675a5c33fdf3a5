// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include <canzona/core/thread_cpu_time.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace canzona {
namespace {

// What the gate relies on: the clock counts this thread's work and not the time it waits.
TEST(ThreadCpuTimeTest, CountsWorkButNotWaiting) {
  const double before_sleep = thread_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double slept = thread_cpu_seconds() - before_sleep;
  EXPECT_GE(slept, 0.0);
  EXPECT_LT(slept, 0.1) << "200 ms asleep counted as CPU time";

  // Busy work until the clock has moved by 20 ms: terminates only if the clock counts work.
  const double before_work = thread_cpu_seconds();
  volatile double sink = 0;
  while (thread_cpu_seconds() - before_work < 0.02) sink = sink + 1.0;
  EXPECT_GE(thread_cpu_seconds() - before_work, 0.02);
}

}  // namespace
}  // namespace canzona
