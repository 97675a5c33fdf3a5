// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Versions of the GPU stack a run used, for the JSON context (nccl-tests records the same).
#pragma once

namespace canzona::bench {

/// Adds what this build and machine have: `cuda_runtime` and `cublas` (builds with CUDA),
/// `cuda_driver` (when a driver is installed), `nccl` (builds with NCCL). Nothing otherwise.
void add_device_versions_context();

}  // namespace canzona::bench
