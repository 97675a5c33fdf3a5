// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one place that knows NCCL versions: the minimum we build against and feature gates for
// anything newer. No NCCL_VERSION_CODE checks anywhere else.
#pragma once

#include <nccl.h>

/// ncclCommSplit (2.18), ncclCommFinalize (2.14), ncclGetLastError (2.13), ncclBfloat16 (2.10).
#define CANZONA_NCCL_MIN_VERSION_CODE NCCL_VERSION(2, 18, 0)
static_assert(NCCL_VERSION_CODE >= CANZONA_NCCL_MIN_VERSION_CODE,
              "Canzona needs NCCL >= 2.18.0 (ncclCommSplit); set NCCL_HOME to a newer NCCL");

/// Communicator split (ncclCommSplit): guaranteed by the minimum version.
#define CANZONA_NCCL_HAS_COMM_SPLIT 1
/// ncclMemAlloc / ncclCommRegister (user buffer registration, NVLS zero-copy): NCCL 2.19.
#define CANZONA_NCCL_HAS_MEM_ALLOC (NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0))
