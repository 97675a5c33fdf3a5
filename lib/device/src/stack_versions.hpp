// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Versions of the GPU stack this module was loaded with (DeviceModule::stack_versions).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace canzona::device {

/// (JSON context key, version) for what this build and machine have: cuda_runtime_version,
/// cublas_version, cusolver_version, driver_version (when a driver is installed), nccl_version
/// (builds with NCCL). A query that fails is left out. Never throws.
std::vector<std::pair<std::string, std::string>> stack_versions() noexcept;

}  // namespace canzona::device
