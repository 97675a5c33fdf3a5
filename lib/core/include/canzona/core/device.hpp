// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one way code asks "is there a GPU". Host-clean; works in builds without CUDA.
#pragma once

#include <string>

namespace canzona {

/// Number of usable CUDA devices; 0 in a build without CUDA, with no driver or with no device.
/// Never throws: a machine with the toolkit but no driver is a normal CPU machine.
int cuda_device_count() noexcept;

/// The calling thread's current CUDA device (0 until the process chooses one; see
/// cuda::use_device), or -1 in a build without CUDA or on a machine without a GPU.
int cuda_current_device() noexcept;

/// Name of CUDA device `index` ("NVIDIA H100 80GB HBM3"), or "" when there is none.
std::string cuda_device_name(int index);

/// Short kind of the local accelerator used to key stored results: "h100-x1", "h200-x8", "cpu".
std::string device_kind();

}  // namespace canzona
