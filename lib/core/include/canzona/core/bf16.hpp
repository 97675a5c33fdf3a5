// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one bf16 <-> fp32 conversion of the project, for the host and the device: the cpu and cuda
// backends (through lib/backend/ops), the MPI communicator's bf16 reduction and the executor's
// model parameters all round with it, so they agree bit for bit. bf16 is stored as the upper 16
// bits of an fp32, so widening is exact and narrowing is a rounding of the lower 16 bits.
#pragma once

#include "canzona/core/float_bits.hpp"

#include <cstdint>

namespace canzona {

/// A bf16 value as its 16-bit pattern.
using bf16_bits = std::uint16_t;

/// The one bf16 NaN (PyTorch's c10::BFloat16 encoding); every NaN narrows to it.
inline constexpr bf16_bits kBf16Nan = 0x7fc0U;

/// Exact widening: the bf16 pattern becomes the upper half of the fp32.
CANZONA_HD inline float bf16_to_float(bf16_bits bits) noexcept {
  return float_of(static_cast<std::uint32_t>(bits) << 16);
}

/// fp32 → bf16, round to nearest even (the rounding of PyTorch, cuda_bf16.h and tensor cores).
/// Subnormals need no special case because bf16 has fp32's exponent range; values past the
/// largest bf16 round to ±Inf. A NaN becomes kBf16Nan: plain rounding could carry a payload that
/// lives only in the low 16 bits into an Inf, and cuda_bf16.h's own conversion gives 0x7FFF, so
/// one pattern is fixed here for the host and the device alike.
CANZONA_HD inline bf16_bits float_to_bf16(float value) noexcept {
  const std::uint32_t bits = bits_of(value);
  if ((bits & 0x7fffffffU) > 0x7f800000U) return kBf16Nan;
  const std::uint32_t lsb = (bits >> 16) & 1U;
  return static_cast<bf16_bits>((bits + 0x7fffU + lsb) >> 16);
}

/// The fp32 value `value` takes after a round trip through bf16.
CANZONA_HD inline float round_to_bf16(float value) noexcept {
  return bf16_to_float(float_to_bf16(value));
}

}  // namespace canzona
