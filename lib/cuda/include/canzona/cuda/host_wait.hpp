// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one host wait on device work with a bound: streams and events are polled until done or
// until a timeout, so a device that hangs (a collective whose peer died is queued on the same
// stream) ends the job with a message instead of blocking it for ever.
#pragma once

#include <canzona/core/error.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <functional>
#include <string_view>

namespace canzona::cuda {

/// Device work waited for longer than the bound. The work may still run and write into its
/// buffers: the process must stop.
class DeviceWaitTimeout : public Error {
 public:
  using Error::Error;
};

/// Polls `query` (cudaStreamQuery / cudaEventQuery of the work) until it stops answering
/// cudaErrorNotReady: cudaSuccess returns, any other code throws CudaError. Between polls it
/// sleeps from 20 µs doubling to 1 ms, so a long wait costs no core. `timeout` 0 waits for ever;
/// past it, DeviceWaitTimeout names `what` and the bound.
void wait_on_host(const std::function<cudaError_t()>& query, std::chrono::duration<double> timeout,
                  std::string_view what);

}  // namespace canzona::cuda
