// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The clocks a GPU runs kernels at, recorded beside every GPU timing (the `gpu_clocks` context key
// of results/SCHEMA.md): a GPU whose application clocks were lowered, or another SKU's clocks,
// moves every row, and a regression gate must be able to tell that from a slower build. Read
// through nvidia-smi, which ships with the driver; nothing here needs CUDA.
#pragma once

#include <string>
#include <string_view>

namespace canzona {

/// The SM / memory application clocks in MHz of the GPU that CUDA numbers 0, as "1980/2619";
/// empty when nvidia-smi is missing, fails, takes more than 10 s, or reports no clocks. The GPU
/// is the first entry of CUDA_VISIBLE_DEVICES when that is set, nvidia-smi's GPU 0 otherwise.
std::string gpu_application_clocks();

/// "1980/2619" from nvidia-smi's csv,noheader,nounits line "1980, 2619"; empty for anything else
/// ("[N/A], [N/A]", an error message, more or fewer fields).
std::string clocks_from_nvidia_smi(std::string_view line);

}  // namespace canzona
