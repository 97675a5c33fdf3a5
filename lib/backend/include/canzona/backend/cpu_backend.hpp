// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cpu backend: host memory, OpenBLAS GEMM, LAPACKE eigensolver and QR, fp32 (bf16 storage
// is honoured by rounding operands to bf16 and accumulating in fp32, as a tensor core does).
#pragma once

#include <canzona/backend/backend.hpp>

#include <memory>

namespace canzona::backend {

/// A cpu backend. Work runs synchronously on the calling thread (OpenBLAS may use its own
/// threads inside a call); synchronize() is a no-op.
std::unique_ptr<Backend> make_cpu_backend();

}  // namespace canzona::backend
