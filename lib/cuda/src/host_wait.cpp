// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// wait_on_host: polling with a backoff and a deadline.
#include "canzona/cuda/host_wait.hpp"

#include "canzona/cuda/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace canzona::cuda {

void wait_on_host(const std::function<cudaError_t()>& query, std::chrono::duration<double> timeout,
                  std::string_view what) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point began = Clock::now();
  std::chrono::microseconds pause(20);
  while (true) {
    const cudaError_t status = query();
    if (status == cudaSuccess) return;
    if (status != cudaErrorNotReady) CANZONA_CUDA_CHECK(status);
    // "Still running" comes through the error channel: clear it for the next API call.
    (void)cudaGetLastError();
    if (timeout.count() > 0 && Clock::now() - began >= timeout) {
      throw DeviceWaitTimeout(fmt::format(
          "{} did not finish within {:g} s: the device hangs, or a collective queued on its "
          "stream waits for a peer that stopped",
          what, timeout.count()));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(1000));
  }
}

}  // namespace canzona::cuda
