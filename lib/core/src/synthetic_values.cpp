// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/core/synthetic_values.hpp"

#include "canzona/core/splitmix.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <thread>
#include <vector>

namespace canzona {
namespace {

constexpr float kTwoPi = 6.28318530717958647692f;
/// Below this many values one thread fills faster than threads start.
constexpr std::size_t kValuesPerThread = std::size_t{1} << 20;

/// The Box–Muller pair of hash h: radius and angle from two uniforms (23 bits + 1/2)·2^-23, exact
/// in float and strictly inside (0, 1): the log is finite, the radius never 0, the angle never a
/// multiple of pi/2 (so neither half is ever exactly 0); values 2k and 2k + 1 of a stream are its
/// cosine and sine halves, so one logarithm serves two values.
struct NormalPair {
  float radius;
  float angle;
};

NormalPair normal_pair(std::uint64_t key, std::uint64_t pair) noexcept {
  const std::uint64_t h = splitmix64(key ^ splitmix64(pair));
  const float u1 = (static_cast<float>(h >> 41) + 0.5f) * 0x1p-23f;
  const float u2 = (static_cast<float>(h & 0x7FFFFFU) + 0.5f) * 0x1p-23f;
  return {std::sqrt(-2.0f * std::log(u1)), kTwoPi * u2};
}

}  // namespace

float synthetic_normal(std::uint64_t key, std::uint64_t index, float stddev) noexcept {
  const NormalPair p = normal_pair(key, index / 2);
  return stddev * p.radius * (index % 2 == 0 ? std::cos(p.angle) : std::sin(p.angle));
}

void fill_synthetic_normal(std::span<float> out, std::uint64_t key, float stddev,
                           std::uint64_t first, unsigned threads) {
  // Whole pairs in the middle (one log, sqrt, sin and cos per two values), single values at
  // the ends; every value equals synthetic_normal(key, first + i, stddev).
  const auto fill = [&](std::size_t begin, std::size_t end) {
    std::size_t i = begin;
    if (i < end && (first + i) % 2 == 1) {
      out[i] = synthetic_normal(key, first + i, stddev);
      ++i;
    }
    for (; i + 1 < end; i += 2) {
      const NormalPair p = normal_pair(key, (first + i) / 2);
      out[i] = stddev * p.radius * std::cos(p.angle);
      out[i + 1] = stddev * p.radius * std::sin(p.angle);
    }
    if (i < end) out[i] = synthetic_normal(key, first + i, stddev);
  };
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t workers =
      std::min<std::size_t>(threads, (out.size() + kValuesPerThread - 1) / kValuesPerThread);
  if (workers <= 1) {
    fill(0, out.size());
    return;
  }
  const std::size_t chunk = (out.size() + workers - 1) / workers;
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (std::size_t w = 1; w < workers; ++w) {
    pool.emplace_back(fill, std::min(out.size(), w * chunk), std::min(out.size(), (w + 1) * chunk));
  }
  fill(0, std::min(out.size(), chunk));  // fill never throws: the threads are always joined
  for (std::thread& t : pool) t.join();
}

std::uint64_t synthetic_key(std::uint64_t seed, std::uint64_t a, std::uint64_t b,
                            std::uint64_t c) noexcept {
  return splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b) ^ c);
}

}  // namespace canzona
