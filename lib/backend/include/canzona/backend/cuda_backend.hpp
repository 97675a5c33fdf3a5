// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cuda backend: device memory, cuBLAS GEMM (bf16 and fp32 inputs, fp32 accumulation,
// strided-batched), cuSOLVER eigensolvers and QR, fused element-wise kernels, all on one
// non-blocking stream owned by the backend. Only built when CANZONA_WITH_CUDA.
#pragma once

#include <canzona/backend/backend.hpp>

#include <memory>

// The runtime's stream handle type, declared as the CUDA runtime does so this header stays
// host-clean (no cuda_runtime_api.h needed to include it).
struct CUstream_st;

namespace canzona::backend {

/// A cuda backend on `device`. Throws ConfigError when the device does not exist.
std::unique_ptr<Backend> make_cuda_backend(int device);

/// The stream every operation of a cuda backend is enqueued on (a cudaStream_t), for events and
/// NCCL calls that must be ordered with the backend's work. canzona::Error when `backend` is not
/// a cuda backend.
CUstream_st* cuda_stream(Backend& backend);

}  // namespace canzona::backend
