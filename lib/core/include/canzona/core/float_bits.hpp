// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The bit patterns of fp32 values, for the host and the device: plain C++17 on the host (no
// CUDA header needed); under nvcc every function is also a device function (CANZONA_HD).
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <cstring>
#endif

#if defined(__CUDACC__)
#define CANZONA_HD __host__ __device__
#else
#define CANZONA_HD
#endif

namespace canzona {

/// The 32 bits of an fp32 value.
CANZONA_HD inline std::uint32_t bits_of(float x) noexcept {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
#endif
}

/// The fp32 value of 32 bits.
CANZONA_HD inline float float_of(std::uint32_t bits) noexcept {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
#endif
}

}  // namespace canzona
