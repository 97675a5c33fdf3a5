// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/backend/backend.hpp"
#include "canzona/backend/cpu_backend.hpp"

#include <canzona/config.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#if CANZONA_WITH_CUDA
#include "canzona/backend/cuda_backend.hpp"
#endif

namespace canzona::backend {

std::unique_ptr<Backend> make_backend(std::string_view name, int device) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "cuda") {
#if CANZONA_WITH_CUDA
    const int devices = cuda_device_count();
    if (device < 0 || device >= devices) {
      throw ConfigError(
          fmt::format("backend 'cuda' needs CUDA device {} but this machine has {} "
                      "(use --backend cpu)",
                      device, devices));
    }
    return make_cuda_backend(device);
#else
    (void)device;
    throw ConfigError("backend 'cuda' is not built in (configure with -DCANZONA_ENABLE_CUDA=ON)");
#endif
  }
  throw ConfigError(fmt::format("unknown backend '{}'; available: cpu, cuda", name));
}

}  // namespace canzona::backend
