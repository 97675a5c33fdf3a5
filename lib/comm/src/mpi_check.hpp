// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Internal: CANZONA_MPI_CHECK, turning an MPI return code into canzona::MpiError.
#pragma once

#include <canzona/core/error.hpp>

#include <mpi.h>

namespace canzona::comm::detail {

/// "MPI error <MPI_Error_string> (code) at file:line in 'expr'".
[[noreturn]] void throw_mpi_error(int code, const char* expr, const char* file, int line);

}  // namespace canzona::comm::detail

#define CANZONA_MPI_CHECK(expr)                                                                 \
  do {                                                                                          \
    const int canzona_mpi_status_ = (expr);                                                     \
    if (canzona_mpi_status_ != MPI_SUCCESS) {                                                   \
      ::canzona::comm::detail::throw_mpi_error(canzona_mpi_status_, #expr, __FILE__, __LINE__); \
    }                                                                                           \
  } while (0)
