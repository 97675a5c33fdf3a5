// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// make_backend, and the cuda factory's hop into the device module.
#include "canzona/backend/backend.hpp"
#include "canzona/backend/cpu_backend.hpp"
#include "canzona/backend/cuda_backend.hpp"

#include <canzona/config.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/device_module.hpp>
#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <string>

namespace canzona::backend {

std::unique_ptr<Backend> make_cuda_backend(int device) {
  const DeviceModule& module = require_device_module("backend 'cuda'");
  return std::unique_ptr<Backend>(module.make_cuda_backend(device));
}

std::unique_ptr<Backend> make_backend(std::string_view name, int device) {
  if (name == "cpu") return make_cpu_backend();
  if (name == "cuda") {
    if (!CANZONA_WITH_CUDA) {
      throw ConfigError("backend 'cuda' is not built in (configure with -DCANZONA_ENABLE_CUDA=ON)");
    }
    const int devices = cuda_device_count();
    if (device < 0 && devices > 0) device = cuda_current_device();
    if (device < 0 || device >= devices) {
      const std::string why = devices == 0 ? cuda_unavailable_reason() : "";
      throw ConfigError(fmt::format(
          "backend 'cuda' needs {} but this machine has {} CUDA device(s){} (use --backend cpu)",
          device < 0 ? std::string("a CUDA device") : fmt::format("CUDA device {}", device),
          devices, why.empty() ? "" : ": " + why));
    }
    return make_cuda_backend(device);
  }
  throw ConfigError(fmt::format("unknown backend '{}'; available: cpu, cuda", name));
}

}  // namespace canzona::backend
