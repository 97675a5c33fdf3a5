// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Device discovery through the device module: a CPU-only command never loads CUDA, and a build
// with CUDA on a machine without a driver, a GPU or the module simply has no devices.
#include "canzona/core/device.hpp"

#include "canzona/core/device_module.hpp"

#include <canzona/config.hpp>

#include <algorithm>
#include <cctype>
#include <exception>

namespace canzona {
namespace {

/// The module when it loads, nullptr otherwise (no CUDA build, or a module that cannot load:
/// then this machine has no usable GPU, and asking for one explains why).
const DeviceModule* module_or_null() noexcept {
  try {
    return device_module();
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

int cuda_device_count() noexcept {
  const DeviceModule* module = module_or_null();
  return module == nullptr ? 0 : module->device_count();
}

std::string cuda_unavailable_reason() {
  if (!CANZONA_WITH_CUDA) return "this build has no CUDA (configure with -DCANZONA_ENABLE_CUDA=ON)";
  const DeviceModule* module = nullptr;
  try {
    module = device_module();
  } catch (const std::exception& e) {
    return e.what();
  }
  return module == nullptr ? "the CUDA device module is missing" : module->no_device_reason();
}

int cuda_current_device() noexcept {
  const DeviceModule* module = module_or_null();
  return module == nullptr ? -1 : module->current_device();
}

std::string cuda_device_name(int index) {
  const DeviceModule* module = module_or_null();
  return module == nullptr ? std::string() : module->device_name(index);
}

std::int64_t cuda_total_memory_bytes(int index) noexcept {
  const DeviceModule* module = module_or_null();
  return module == nullptr ? 0 : module->total_memory_bytes(index);
}

std::int64_t cuda_free_memory_bytes(int index) noexcept {
  const DeviceModule* module = module_or_null();
  return module == nullptr ? 0 : module->free_memory_bytes(index);
}

std::string device_kind() {
  const int count = cuda_device_count();
  if (count == 0) return "cpu";
  std::string name = cuda_device_name(0);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string model = "gpu";
  for (const char* known : {"h200", "h100", "a100", "b200", "l40s"}) {
    if (name.find(known) != std::string::npos) {
      model = known;
      break;
    }
  }
  return model + "-x" + std::to_string(count);
}

}  // namespace canzona
