// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The splitmix64 finaliser: a counter-based hash, so a value derived from (seed, indices) can be
// computed anywhere (any rank, any TP degree) without communication, and neighbouring indices
// give decorrelated values.
#pragma once

#include <cstdint>

namespace canzona {

constexpr std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace canzona
