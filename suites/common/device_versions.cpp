// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "device_versions.hpp"

#include <canzona/config.hpp>

#include <benchmark/benchmark.h>

#include <string>

#if CANZONA_WITH_CUDA
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#endif
#if CANZONA_WITH_NCCL
#include <nccl.h>
#endif

namespace canzona::bench {
namespace {

// CUDA encodes versions as 1000·major + 10·minor; NCCL (>= 2.9) as 10000·major + 100·minor +
// patch.
[[maybe_unused]] std::string cuda_version(int code) {
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

}  // namespace

void add_device_versions_context() {
#if CANZONA_WITH_CUDA
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    benchmark::AddCustomContext("cuda_runtime", cuda_version(runtime));
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    benchmark::AddCustomContext("cuda_driver", cuda_version(driver));
  }
  int major = 0;
  int minor = 0;
  int patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
    benchmark::AddCustomContext("cublas", std::to_string(major) + "." + std::to_string(minor) +
                                              "." + std::to_string(patch));
  }
#endif
#if CANZONA_WITH_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess) {
    benchmark::AddCustomContext("nccl", std::to_string(nccl / 10000) + "." +
                                            std::to_string(nccl % 10000 / 100) + "." +
                                            std::to_string(nccl % 100));
  }
#endif
}

}  // namespace canzona::bench
