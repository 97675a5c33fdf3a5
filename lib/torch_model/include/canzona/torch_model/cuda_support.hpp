// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Whether this build can run the model on CUDA devices: its tensor-parallel collectives on
// CUDA tensors need a libtorch built with CUDA and the NCCL communicator. Debian's libtorch is
// CPU-only, so a build against it runs the model on CPU ranks only.
#pragma once

#include <string>

namespace canzona::torch_model {

/// "" when the model can run on CUDA, else why not, in words a user can act on.
std::string cuda_model_unavailable_reason();

}  // namespace canzona::torch_model
