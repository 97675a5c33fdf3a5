// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/thread_cpu_time.hpp"

#include "canzona/core/error.hpp"

#include <ctime>

namespace canzona {

double thread_cpu_seconds() {
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) {
    throw Error("cannot read the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID)");
  }
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace canzona
