// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "device_versions.hpp"

#include <canzona/config.hpp>

#include <benchmark/benchmark.h>

#include <string>

#if CANZONA_WITH_CUDA
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cusolver_common.h>
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

[[maybe_unused]] std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

void add_device_versions_context() {
#if CANZONA_WITH_CUDA
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    benchmark::AddCustomContext("cuda_runtime_version", cuda_version(runtime));
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    benchmark::AddCustomContext("driver_version", cuda_version(driver));
  }
  int major = 0;
  int minor = 0;
  int patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
    benchmark::AddCustomContext("cublas_version", dotted(major, minor, patch));
  }
  if (cusolverGetProperty(MAJOR_VERSION, &major) == CUSOLVER_STATUS_SUCCESS &&
      cusolverGetProperty(MINOR_VERSION, &minor) == CUSOLVER_STATUS_SUCCESS &&
      cusolverGetProperty(PATCH_LEVEL, &patch) == CUSOLVER_STATUS_SUCCESS) {
    benchmark::AddCustomContext("cusolver_version", dotted(major, minor, patch));
  }
#endif
#if CANZONA_WITH_NCCL
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess) {
    benchmark::AddCustomContext("nccl_version",
                                dotted(nccl / 10000, nccl % 10000 / 100, nccl % 100));
  }
#endif
}

}  // namespace canzona::bench
