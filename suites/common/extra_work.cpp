// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "extra_work.hpp"

#include <chrono>

namespace canzona::bench {

double busy_work(double seconds) {
  if (!(seconds > 0)) return 0;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  // A dependent chain the compiler cannot remove; the clock is read every 1024 rounds.
  volatile double sink = 1.0;
  while (Clock::now() < end) {
    double x = sink;
    for (int i = 0; i < 1024; ++i) x = x * 1.0000001 + 1e-9;
    sink = x;
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace canzona::bench
