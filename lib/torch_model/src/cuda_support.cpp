// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/torch_model/cuda_support.hpp"

namespace canzona::torch_model {

std::string cuda_model_unavailable_reason() {
#if CANZONA_TORCH_DEVICE_COLLECTIVES
  return "";
#else
  return "this build's libtorch has no CUDA, or the build has no NCCL (configure against a "
         "CUDA libtorch, e.g. PyTorch's: -DCMAKE_PREFIX_PATH=$(python3 -c 'import torch; "
         "print(torch.utils.cmake_prefix_path)'))";
#endif
}

}  // namespace canzona::torch_model
