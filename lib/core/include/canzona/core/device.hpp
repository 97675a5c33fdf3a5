// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one way code asks "is there a GPU". Host-clean; works in builds without CUDA.
#pragma once

#include <cstdint>
#include <string>

namespace canzona {

/// Number of usable CUDA devices; 0 in a build without CUDA, with no driver or with no device.
/// Never throws: a machine with the toolkit but no driver is a normal CPU machine.
int cuda_device_count() noexcept;

/// Why cuda_device_count() is 0, in words a user can act on: a build without CUDA, a device
/// module that cannot be loaded (the loader's message: a missing libcublas, libnccl, ...), or the
/// CUDA runtime's error (an old driver, no device). "" when there are devices.
std::string cuda_unavailable_reason();

/// The calling thread's current CUDA device (0 until the process chooses one; see
/// cuda::use_device), or -1 in a build without CUDA or on a machine without a GPU.
int cuda_current_device() noexcept;

/// Name of CUDA device `index` ("NVIDIA H100 80GB HBM3"), or "" when there is none.
std::string cuda_device_name(int index);

/// Memory of CUDA device `index` in bytes; 0 when there is none. Never throws.
std::int64_t cuda_total_memory_bytes(int index) noexcept;

/// Free memory of CUDA device `index` in bytes (initialises its context); 0 when there is none.
/// Never throws.
std::int64_t cuda_free_memory_bytes(int index) noexcept;

/// Short kind of the local accelerator used to key stored results: "h100-x1", "h200-x8", "cpu".
std::string device_kind();

}  // namespace canzona
