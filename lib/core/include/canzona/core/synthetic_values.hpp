// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Synthetic parameters and gradients for benchmarks: normal values that are a pure function of
// (key, index), so an array of any size fills on every core at once and gives the same numbers
// whatever the thread count, the rank or the order of filling. A sequential generator
// (mt19937 + normal_distribution) spent about a minute per case filling a full Qwen3-0.6B's
// parameters and gradients on a GPU node, for a step of 26 ms.
#pragma once

#include <cstdint>
#include <span>

namespace canzona {

/// Value `index` of stream `key`: normal(0, stddev) by Box–Muller on a splitmix64 hash of
/// index / 2 (tails cut at about 5.7 stddev); never exactly zero for stddev > 0.
float synthetic_normal(std::uint64_t key, std::uint64_t index, float stddev) noexcept;

/// out[i] = synthetic_normal(key, first + i, stddev), filled by up to `threads` threads
/// (0: one per hardware thread); small arrays fill on the calling thread.
void fill_synthetic_normal(std::span<float> out, std::uint64_t key, float stddev,
                           std::uint64_t first = 0, unsigned threads = 0);

/// A stream key from a seed and the parts that tell streams apart (rank, buffer, what it is).
std::uint64_t synthetic_key(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0,
                            std::uint64_t c = 0) noexcept;

}  // namespace canzona
