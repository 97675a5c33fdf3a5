// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "device_versions.hpp"

#include <canzona/core/device_module.hpp>

#include <benchmark/benchmark.h>

#include <exception>

namespace canzona::bench {

void add_device_versions_context() {
  const DeviceModule* module = nullptr;
  try {
    module = device_module();
  } catch (const std::exception&) {
    return;  // a CUDA build whose module cannot load here (no CUDA runtime): no GPU stack to name
  }
  if (module == nullptr || module->stack_versions == nullptr) return;
  for (const auto& [key, version] : module->stack_versions()) {
    benchmark::AddCustomContext(key, version);
  }
}

}  // namespace canzona::bench
