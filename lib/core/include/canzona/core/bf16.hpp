// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Host bf16 <-> fp32 conversions, shared by the cpu backend and the MPI communicator's bf16
// reduction. bf16 is stored as the upper 16 bits of an fp32, so widening is exact and narrowing
// is a rounding of the lower 16 bits.
#pragma once

#include <bit>
#include <cstdint>

namespace canzona {

/// Exact widening: the bf16 pattern becomes the upper half of the fp32.
inline float bf16_to_float(std::uint16_t bits) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

/// fp32 → bf16, round to nearest even (the rounding of PyTorch, cuda_bf16.h and tensor cores).
/// Subnormals need no special case because bf16 has fp32's exponent range; values past the
/// largest bf16 round to ±Inf. A NaN stays a NaN: plain rounding could carry a payload that
/// lives only in the low 16 bits into an Inf, so NaNs are truncated and made quiet instead.
inline std::uint16_t float_to_bf16(float value) noexcept {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffU) > 0x7f800000U) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040U);
  }
  const std::uint32_t lsb = (bits >> 16) & 1U;
  return static_cast<std::uint16_t>((bits + 0x7fffU + lsb) >> 16);
}

/// The fp32 value `value` takes after a round trip through bf16.
inline float round_to_bf16(float value) noexcept { return bf16_to_float(float_to_bf16(value)); }

}  // namespace canzona
