// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cuda backend: device memory, cuBLAS GEMM (bf16 and fp32 inputs, fp32 accumulation,
// strided-batched), cuSOLVER eigensolvers and QR, the shared element-wise functors, all on one
// non-blocking stream owned by the backend. It lives in the device module (libcanzona_device.so,
// loaded on first use); this factory loads it. Host-clean.
#pragma once

#include <canzona/backend/backend.hpp>

#include <memory>

namespace canzona::backend {

/// A cuda backend on `device` (an existing device index). ConfigError when the device does not
/// exist or the build has no CUDA module.
std::unique_ptr<Backend> make_cuda_backend(int device);

}  // namespace canzona::backend
