// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The scalar rules both backends compute with, written once for the host and the device: the
// fp32 arithmetic policy, the one bf16 conversion, the one NaN-propagating max, the inverse
// roots of the preconditioners and the sort key of argsort. Plain C++17 on the host (no CUDA
// header needed); under nvcc every function is also a device function.
//
// Arithmetic policy: every operation is one correctly rounded IEEE fp32 operation, never fused.
// On the device the functions below use the _rn intrinsics, which nvcc never contracts into an
// FMA whatever -fmad says; on the host the backend is compiled with -ffp-contract=off, so a
// compiler that targets FMA hardware does not fuse a·b + c either. Division and square root are
// the correctly rounded ones on both sides (no approximate reciprocal, no fast math), so every
// formula written with these functions gives the same bits on the CPU and the GPU.
#pragma once

#include <canzona/core/bf16.hpp>
#include <canzona/core/float_bits.hpp>

#include <cstdint>

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace canzona::backend::ops {

// The bit patterns and the one bf16 conversion live in lib/core (canzona/core/bf16.hpp), shared
// with the MPI communicator's bf16 sums and the executor.
using canzona::bf16_bits;
using canzona::bf16_to_float;
using canzona::bits_of;
using canzona::float_of;
using canzona::float_to_bf16;
using canzona::kBf16Nan;
using canzona::round_to_bf16;

/// The one quiet NaN the rules below produce (the default NaN of both x86 and CUDA is not the
/// same pattern, so a produced NaN is never left to the hardware).
inline constexpr std::uint32_t kNanBits = 0x7fc00000U;

CANZONA_HD inline bool is_nan(float x) { return (bits_of(x) & 0x7fffffffU) > 0x7f800000U; }

/// NaN or ±Inf, by the exponent bits (survives fast-math style flags).
CANZONA_HD inline bool is_nonfinite(float x) { return (bits_of(x) & 0x7f800000U) == 0x7f800000U; }

// ---- arithmetic policy: one rounding per operation, never fused ----------------------------

CANZONA_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

CANZONA_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

CANZONA_HD inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

CANZONA_HD inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}

CANZONA_HD inline float sqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

/// max(a, b) that keeps a NaN: NaN when either operand is NaN (as the canonical kNanBits),
/// otherwise the larger value (a on ties, so max(−0, +0) = −0 like std::max). fmaxf would turn
/// a NaN into the other operand, i.e. a failed eigensolve into a finite, wrong preconditioner.
CANZONA_HD inline float max_nan(float a, float b) {
  if (is_nan(a) || is_nan(b)) return float_of(kNanBits);
  return a < b ? b : a;
}

// ---- element access: fp32 as is, bf16 widened on load and rounded on store -------------------

CANZONA_HD inline float load(const float* p, std::int64_t i) { return p[i]; }
CANZONA_HD inline float load(const bf16_bits* p, std::int64_t i) { return bf16_to_float(p[i]); }
CANZONA_HD inline void store(float* p, std::int64_t i, float value) { p[i] = value; }
CANZONA_HD inline void store(bf16_bits* p, std::int64_t i, float value) {
  p[i] = float_to_bf16(value);
}

// ---- preconditioner roots -------------------------------------------------------------------

/// Largest k of the inverse 2^k-th roots below.
inline constexpr int kMaxInverseRootOrder = 8;

/// x^(−1/2^k) as k correctly rounded square roots and one correctly rounded division, k ≤
/// kMaxInverseRootOrder. powf is not correctly rounded and glibc and libdevice round it
/// differently; this chain gives the same bits on both sides, within about (k/2 + 1) ulp of the
/// exact root. NaN stays NaN, +0 gives +Inf, a negative x gives NaN. The loop has a fixed trip
/// count so that nvcc unrolls it: a data-dependent loop around the square root's slow path
/// makes ptxas spill registers to local memory.
CANZONA_HD inline float inverse_root(float x, int k) {
  float r = x;
  for (int i = 0; i < kMaxInverseRootOrder; ++i) {
    if (i < k) r = sqrt_rn(r);
  }
  return div_rn(1.0f, r);
}

/// k with exponent = −1/2^k (k ≤ 8), the exponents inverse_root can evaluate exactly, or −1
/// for any other exponent. Host-side check of the backends' scale_columns_pow argument.
inline int inverse_root_order(float exponent) {
  float e = -1.0f;
  for (int k = 0; k <= kMaxInverseRootOrder; ++k, e *= 0.5f) {
    if (exponent == e) return k;
  }
  return -1;
}

/// The column factor of an inverse root from eigenvalue λ: (max(λ, 0) + eps)^(−1/2^k).
/// Negative round-off eigenvalues are clamped to 0; a NaN eigenvalue stays NaN.
CANZONA_HD inline float inverse_root_factor(float lambda, float eps, int k) {
  return inverse_root(add_rn(max_nan(lambda, 0.0f), eps), k);
}

// ---- ordering -------------------------------------------------------------------------------

/// Sort key of `value` for a descending argsort done as an ascending stable sort of keys:
/// larger values get smaller keys, −0 and +0 share a key (a tie, kept in index order), and
/// every NaN, whatever its sign or payload, gets the largest key, so NaNs come last.
CANZONA_HD inline std::uint32_t descending_sort_key(float value) {
  if (is_nan(value)) return 0xffffffffU;
  const std::uint32_t bits = bits_of(value) == 0x80000000U ? 0U : bits_of(value);
  // Order-preserving map of the float onto unsigned integers (IEEE total order), inverted.
  const std::uint32_t ascending = (bits & 0x80000000U) != 0U ? ~bits : (bits | 0x80000000U);
  return ~ascending;
}

}  // namespace canzona::backend::ops
