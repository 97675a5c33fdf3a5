// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// fp32 values written from the host into backend memory of any element type: how callers fill
// buffers whose type a plan decides (bf16 model parameters, fp32 or bf16 gradients).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "canzona/backend/backend.hpp"

namespace canzona::backend {

/// `values` as elements of `type`, byte for byte as backend memory holds them (bf16: rounded to
/// nearest even, the rounding of the backends).
std::vector<std::uint8_t> host_elements(std::span<const float> values, ElementType type);

/// Copies `values` into `dst` (backend memory of `type`, values.size() elements) and waits for
/// the copy.
void upload_values(Backend& backend, void* dst, ElementType type, std::span<const float> values);

}  // namespace canzona::backend
