// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Host bf16 <-> fp32 conversions of the cpu backend (canzona/core/bf16.hpp).
#pragma once

#include <canzona/core/bf16.hpp>

namespace canzona::backend::cpu {

using canzona::bf16_to_float;
using canzona::float_to_bf16;
using canzona::round_to_bf16;

}  // namespace canzona::backend::cpu
