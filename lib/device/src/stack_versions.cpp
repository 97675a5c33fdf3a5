// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "stack_versions.hpp"

#include <canzona/config.hpp>

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cusolver_common.h>
#if CANZONA_WITH_NCCL
#include <nccl.h>
#endif

namespace canzona::device {
namespace {

// CUDA encodes versions as 1000·major + 10·minor; NCCL (>= 2.9) as 10000·major + 100·minor +
// patch.
std::string cuda_version(int code) {
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

std::string dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> stack_versions() noexcept {
  std::vector<std::pair<std::string, std::string>> versions;
  try {
    int runtime = 0;
    if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
      versions.emplace_back("cuda_runtime_version", cuda_version(runtime));
    }
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
      versions.emplace_back("driver_version", cuda_version(driver));
    }
    int major = 0;
    int minor = 0;
    int patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
      versions.emplace_back("cublas_version", dotted(major, minor, patch));
    }
    if (cusolverGetProperty(MAJOR_VERSION, &major) == CUSOLVER_STATUS_SUCCESS &&
        cusolverGetProperty(MINOR_VERSION, &minor) == CUSOLVER_STATUS_SUCCESS &&
        cusolverGetProperty(PATCH_LEVEL, &patch) == CUSOLVER_STATUS_SUCCESS) {
      versions.emplace_back("cusolver_version", dotted(major, minor, patch));
    }
#if CANZONA_WITH_NCCL
    int nccl = 0;
    if (ncclGetVersion(&nccl) == ncclSuccess) {
      versions.emplace_back("nccl_version", dotted(nccl / 10000, nccl % 10000 / 100, nccl % 100));
    }
#endif
  } catch (...) {  // out of memory for a few short strings: report what was gathered
  }
  return versions;
}

}  // namespace canzona::device
