// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shared helpers of the cpu backend tests: seeded random data, host <-> backend round trips and
// the fp32 unit round-off the tolerances are written in.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/testing/seed.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace canzona::backend::cpu::test {

/// Unit round-off of fp32 (half an ulp of 1): every correctly rounded fp32 operation has a
/// relative error of at most kU.
constexpr double kU = 1.0 / (1 << 24);
/// Unit round-off of bf16 (8 significand bits).
constexpr double kUBf16 = 1.0 / (1 << 8);

/// A generator seeded from test_seed() and a per-test salt, so tests draw independent streams
/// that one CANZONA_TEST_SEED reproduces.
inline std::mt19937_64 make_rng(std::uint64_t salt) {
  return std::mt19937_64(canzona::testing::test_seed() ^ (salt * 0x9e3779b97f4a7c15ULL));
}

inline std::string seed_trace() {
  return "CANZONA_TEST_SEED=" + std::to_string(canzona::testing::test_seed());
}

inline std::vector<float> random_floats(std::mt19937_64& rng, std::size_t n, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(n);
  for (float& x : out) x = dist(rng);
  return out;
}

/// A backend buffer holding a copy of `host`.
template <typename T>
Buffer to_backend(Backend& backend, const std::vector<T>& host) {
  Buffer buffer = backend.allocate(host.size() * sizeof(T));
  backend.upload(buffer.data(), host.data(), host.size() * sizeof(T));
  return buffer;
}

/// The first `n` elements of a backend buffer, downloaded.
template <typename T>
std::vector<T> to_host(Backend& backend, const Buffer& buffer, std::size_t n) {
  std::vector<T> host(n);
  backend.download(host.data(), buffer.data(), n * sizeof(T));
  return host;
}

}  // namespace canzona::backend::cpu::test
