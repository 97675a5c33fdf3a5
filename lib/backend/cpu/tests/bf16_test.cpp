// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// bf16 rounding: the helper and Backend::convert against hand-picked bit patterns (ties, NaN,
// Inf, the subnormal boundary) and against an independent nearest-even reference.
#include "cpu_backend.hpp"
#include "numerics.hpp"

#include "test_util.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace canzona::backend::cpu {
namespace {

using ops::bf16_to_float;
using ops::float_to_bf16;

float from_bits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

/// Nearest-even rounding written from the definition: pick the nearer of the two bf16 values
/// around x (compared in double), the even one on a tie.
std::uint16_t reference_bf16(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const auto down = static_cast<std::uint16_t>(bits >> 16);  // toward zero
  const auto up = static_cast<std::uint16_t>(down + 1);      // away from zero
  if (std::isinf(x)) return down;
  const double ax = std::fabs(static_cast<double>(x));
  const double lo = std::fabs(static_cast<double>(bf16_to_float(down)));
  // Past the largest bf16 the next value is 2^128 (IEEE rounds to Inf from there).
  const double hi = (up & 0x7fffU) == 0x7f80U ? std::ldexp(1.0, 128)
                                              : std::fabs(static_cast<double>(bf16_to_float(up)));
  if (ax - lo < hi - ax) return down;
  if (ax - lo > hi - ax) return up;
  return (down & 1U) == 0 ? down : up;
}

struct Case {
  std::uint32_t in;
  std::uint16_t out;
  const char* what;
};

TEST(CpuBf16Test, RoundsHandPickedPatterns) {
  const Case cases[] = {
      {0x3f800000U, 0x3f80U, "1.0 exact"},
      {0x3f808000U, 0x3f80U, "1 + 2^-8: tie, down to even"},
      {0x3f818000U, 0x3f82U, "1 + 3*2^-8: tie, up to even"},
      {0x3f808001U, 0x3f81U, "just above the tie rounds up"},
      {0x3f807fffU, 0x3f80U, "just below the tie rounds down"},
      {0xbf818000U, 0xbf82U, "negative tie goes to even magnitude"},
      {0x7f7fffffU, 0x7f80U, "FLT_MAX rounds to +Inf"},
      {0x7f7f7fffU, 0x7f7fU, "below the midpoint stays the largest finite bf16"},
      {0x7f800000U, 0x7f80U, "+Inf"},
      {0xff800000U, 0xff80U, "-Inf"},
      {0x00000000U, 0x0000U, "+0"},
      {0x80000000U, 0x8000U, "-0"},
      {0x00000001U, 0x0000U, "smallest fp32 subnormal rounds to 0"},
      {0x00008000U, 0x0000U, "tie at half the smallest bf16 subnormal: down to even 0"},
      {0x00008001U, 0x0001U, "above it: smallest bf16 subnormal"},
      {0x00018000U, 0x0002U, "subnormal tie up to even"},
      {0x007fffffU, 0x0080U, "largest fp32 subnormal rounds to the smallest normal"},
      {0x807fffffU, 0x8080U, "negative side of the subnormal boundary"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(float_to_bf16(from_bits(c.in)), c.out) << c.what;
  }
}

TEST(CpuBf16Test, EveryNanNarrowsToTheOneBf16Nan) {
  // A NaN whose payload lives only in the low 16 bits must not become Inf, and every NaN gets
  // the same pattern on the CPU and the GPU (ops::kBf16Nan, PyTorch's 0x7FC0).
  for (std::uint32_t bits : {0x7f800001U, 0x7fc00000U, 0xffc00000U, 0x7fbfffffU, 0xff800001U,
                             0x7fffffffU, 0xffffffffU}) {
    const std::uint16_t out = float_to_bf16(from_bits(bits));
    EXPECT_EQ(out, ops::kBf16Nan) << std::hex << bits;
    EXPECT_TRUE(std::isnan(bf16_to_float(out))) << std::hex << bits;
  }
}

TEST(CpuBf16Test, WideningIsExactForEveryPattern) {
  for (std::uint32_t p = 0; p <= 0xffffU; ++p) {
    const auto bits = static_cast<std::uint16_t>(p);
    const float x = bf16_to_float(bits);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(x), p << 16);
    if (!std::isnan(x)) {
      ASSERT_EQ(float_to_bf16(x), bits) << "round trip of " << std::hex << p;
    }
  }
}

TEST(CpuBf16Test, ConvertMatchesNearestEvenReference) {
  SCOPED_TRACE(test::seed_trace());
  auto rng = test::make_rng(2);
  // Random bit patterns cover every exponent, subnormals and the specials.
  std::vector<float> x(100000);
  for (float& v : x) v = from_bits(static_cast<std::uint32_t>(rng()));
  x[0] = from_bits(0x3f808000U);
  x[1] = from_bits(0x7f7fffffU);

  CpuBackend backend;
  Buffer src = test::to_backend(backend, x);
  Buffer narrow = backend.allocate(x.size() * 2);
  Buffer wide = backend.allocate(x.size() * 4);
  const auto n = static_cast<std::int64_t>(x.size());
  backend.convert(narrow.data(), ElementType::kBFloat16, src.data(), ElementType::kFloat32, n);
  backend.convert(wide.data(), ElementType::kFloat32, narrow.data(), ElementType::kBFloat16, n);
  const auto bf = test::to_host<std::uint16_t>(backend, narrow, x.size());
  const auto back = test::to_host<float>(backend, wide, x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) {
      ASSERT_TRUE(std::isnan(back[i])) << "element " << i;
      continue;
    }
    ASSERT_EQ(bf[i], reference_bf16(x[i]))
        << "element " << i << " bits " << std::hex << std::bit_cast<std::uint32_t>(x[i]);
    ASSERT_EQ(std::bit_cast<std::uint32_t>(back[i]), static_cast<std::uint32_t>(bf[i]) << 16);
  }

  // Same-type conversion is a copy.
  Buffer same = backend.allocate(x.size() * 4);
  backend.convert(same.data(), ElementType::kFloat32, src.data(), ElementType::kFloat32, n);
  EXPECT_EQ(
      std::memcmp(test::to_host<float>(backend, same, x.size()).data(), x.data(), x.size() * 4), 0);
}

}  // namespace
}  // namespace canzona::backend::cpu
