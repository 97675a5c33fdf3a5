// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Formatting behind CANZONA_NCCL_CHECK / CANZONA_NCCL_WARN.
#include "canzona/comm/nccl_check.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <exception>

namespace canzona::comm::detail {

const char* nccl_result_name(ncclResult_t result) noexcept {
  switch (result) {
    case ncclSuccess:
      return "ncclSuccess";
    case ncclUnhandledCudaError:
      return "ncclUnhandledCudaError";
    case ncclSystemError:
      return "ncclSystemError";
    case ncclInternalError:
      return "ncclInternalError";
    case ncclInvalidArgument:
      return "ncclInvalidArgument";
    case ncclInvalidUsage:
      return "ncclInvalidUsage";
    case ncclRemoteError:
      return "ncclRemoteError";
    case ncclInProgress:
      return "ncclInProgress";
    default:
      return "ncclUnknownResult";
  }
}

std::string nccl_runtime_version() {
  int code = 0;
  if (ncclGetVersion(&code) != ncclSuccess) {
    return "unknown";
  }
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
}

std::string format_nccl_error(ncclResult_t result, ncclComm_t comm, const char* expr,
                              const char* file, int line) {
  const char* last = ncclGetLastError(comm);
  return fmt::format("NCCL error {} ({}): {} at {}:{} in '{}' [last NCCL error: {}] (NCCL {})",
                     nccl_result_name(result), static_cast<int>(result), ncclGetErrorString(result),
                     file, line, expr, (last != nullptr && *last != '\0') ? last : "none",
                     nccl_runtime_version());
}

void throw_nccl_error(ncclResult_t result, ncclComm_t comm, const char* expr, const char* file,
                      int line) {
  throw NcclError(format_nccl_error(result, comm, expr, file, line), static_cast<int>(result));
}

void warn_nccl_error(ncclResult_t result, ncclComm_t comm, const char* expr, const char* file,
                     int line) noexcept {
  try {
    const std::string message = format_nccl_error(result, comm, expr, file, line);
    std::fprintf(stderr, "canzona: warning: %s\n", message.c_str());
  } catch (const std::exception&) {
    std::fprintf(stderr, "canzona: warning: NCCL error %d in '%s'\n", static_cast<int>(result),
                 expr);
  }
}

}  // namespace canzona::comm::detail
