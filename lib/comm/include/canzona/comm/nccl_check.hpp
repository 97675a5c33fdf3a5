// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CANZONA_NCCL_CHECK / CANZONA_NCCL_WARN: NCCL return codes to canzona::NcclError with the
// error string, NCCL's last error message and the NCCL version (PyTorch's message shape).
#pragma once

#include "canzona/comm/nccl_features.hpp"

#include <canzona/core/error.hpp>

#include <nccl.h>

#include <string>

namespace canzona::comm::detail {

/// "ncclInvalidArgument" for a result code; "ncclUnknownResult" for values we do not know.
const char* nccl_result_name(ncclResult_t result) noexcept;
/// Version of the NCCL library linked at run time, "2.28.9".
std::string nccl_runtime_version();
/// "NCCL error ncclInvalidArgument (4): <ncclGetErrorString> at file:line in 'expr'
/// [last NCCL error: <ncclGetLastError(comm)>] (NCCL 2.28.9)". Needs no device.
std::string format_nccl_error(ncclResult_t result, ncclComm_t comm, const char* expr,
                              const char* file, int line);
[[noreturn]] void throw_nccl_error(ncclResult_t result, ncclComm_t comm, const char* expr,
                                   const char* file, int line);
void warn_nccl_error(ncclResult_t result, ncclComm_t comm, const char* expr, const char* file,
                     int line) noexcept;

}  // namespace canzona::comm::detail

/// Throws canzona::NcclError (code = the ncclResult_t) unless `expr` returns ncclSuccess.
/// `nccl_comm` (an ncclComm_t, may be nullptr) selects the communicator whose last error is quoted.
#define CANZONA_NCCL_CHECK(expr, nccl_comm)                                               \
  do {                                                                                    \
    const ncclResult_t canzona_nccl_status_ = (expr);                                     \
    if (canzona_nccl_status_ != ncclSuccess) {                                            \
      ::canzona::comm::detail::throw_nccl_error(canzona_nccl_status_, (nccl_comm), #expr, \
                                                __FILE__, __LINE__);                      \
    }                                                                                     \
  } while (0)

/// Logs a failed NCCL call to stderr; never throws. For destructors.
#define CANZONA_NCCL_WARN(expr, nccl_comm)                                                         \
  do {                                                                                             \
    const ncclResult_t canzona_nccl_status_ = (expr);                                              \
    if (canzona_nccl_status_ != ncclSuccess) {                                                     \
      ::canzona::comm::detail::warn_nccl_error(canzona_nccl_status_, (nccl_comm), #expr, __FILE__, \
                                               __LINE__);                                          \
    }                                                                                              \
  } while (0)
