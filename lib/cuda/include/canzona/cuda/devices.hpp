// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Device discovery on the CUDA runtime, for the code inside the device module (everything else
// asks canzona::cuda_device_count() & co. in core, which forward here through the module).
#pragma once

#include <cstdint>
#include <string>

namespace canzona::cuda {

/// Usable devices; 0 with no driver (cudaErrorInsufficientDriver) or no device. Never throws.
int device_count() noexcept;

/// Why device_count() is 0: the CUDA runtime's error from asking for the count (an old driver,
/// no device, a runtime that cannot start), "" when there are devices.
std::string no_device_reason();

/// The calling thread's current device, or -1 when there is no device. Never throws.
int current_device_or_none() noexcept;

/// Name of device `index` ("NVIDIA H100 80GB HBM3"), "" when it does not exist.
std::string device_name(int index);

/// Memory of device `index` in bytes, 0 when it does not exist. Creates no context.
std::int64_t total_memory_bytes(int index) noexcept;

/// Free memory of device `index` in bytes (cudaMemGetInfo on it), 0 when it does not exist or
/// the query fails. Initialises the device's context; leaves the current device as it was.
std::int64_t free_memory_bytes(int index) noexcept;

}  // namespace canzona::cuda
