// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Versions of the GPU stack a run used, for the JSON context (nccl-tests records the same).
#pragma once

namespace canzona::bench {

/// Adds what this build and machine have (results/SCHEMA.md), as the device module reports it:
/// `cuda_runtime_version`, `cublas_version` and `cusolver_version` (builds with CUDA),
/// `driver_version` (when a driver is installed), `nccl_version` (builds with NCCL). Nothing in
/// a build without CUDA or where the module cannot load.
void add_device_versions_context();

}  // namespace canzona::bench
