// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Helpers of the cuda backend's GPU tests: a fixture that owns the backend and a seeded RNG,
// host bf16 conversions, upload/download of std::vectors, and element-wise comparisons.
#pragma once

#include "cuda_backend.hpp"
#include "numerics.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/testing/gpu.hpp>
#include <canzona/testing/seed.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace canzona::backend::test {

/// fp32 → bf16 pattern: the backends' one conversion (nearest even, every NaN → 0x7FC0).
inline std::uint16_t to_bf16(float f) { return ops::float_to_bf16(f); }

inline float from_bf16(std::uint16_t h) { return ops::bf16_to_float(h); }

/// f rounded to the nearest bf16 value, as a float.
inline float round_bf16(float f) { return ops::round_to_bf16(f); }

inline std::vector<std::uint16_t> to_bf16(const std::vector<float>& v) {
  std::vector<std::uint16_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    out[i] = to_bf16(v[i]);
  }
  return out;
}

inline std::vector<float> from_bf16(const std::vector<std::uint16_t>& v) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    out[i] = from_bf16(v[i]);
  }
  return out;
}

/// Fixture: a cuda backend on device 0 and an RNG seeded from test_seed(). Tests put
/// SCOPED_TRACE(trace()) first so a failure names the seed that reproduces it.
class CudaBackendTest : public canzona::testing::OneGpuTest {
 protected:
  void SetUp() override {
    canzona::testing::OneGpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
      return;
    }
    seed_ = canzona::testing::test_seed();
    rng_.seed(seed_);
    backend_ = make_backend("cuda", 0);
    cuda_ = dynamic_cast<CudaBackend*>(backend_.get());
    ASSERT_NE(cuda_, nullptr);
  }

  std::string trace() const { return "seed " + std::to_string(seed_); }

  Backend& be() { return *backend_; }
  CudaBackend& cuda() { return *cuda_; }

  std::vector<float> uniform(std::size_t n, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) {
      x = dist(rng_);
    }
    return v;
  }
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }

  /// A device copy of `host`. The upload is asynchronous: `host` must outlive the next sync.
  template <typename T>
  Buffer put(const std::vector<T>& host) {
    Buffer b = be().allocate(host.size() * sizeof(T));
    be().upload(b.data(), host.data(), host.size() * sizeof(T));
    return b;
  }
  template <typename T>
  std::vector<T> get(const Buffer& b, std::size_t count) {
    std::vector<T> host(count);
    be().download(host.data(), b.data(), count * sizeof(T));
    return host;
  }

  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  std::unique_ptr<Backend> backend_;
  CudaBackend* cuda_ = nullptr;
};

/// Expects |got[i] − want[i]| ≤ atol + rtol·|want[i]| everywhere; reports the first few misses.
inline void expect_close(const std::vector<float>& got, const std::vector<double>& want,
                         double rtol, double atol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  std::size_t misses = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(static_cast<double>(got[i]) - want[i]);
    if (!(err <= atol + rtol * std::abs(want[i]))) {
      ++misses;
      if (reported++ < 5) {
        ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i] << " (err "
                      << err << ")";
      }
    }
  }
  EXPECT_EQ(misses, 0U) << what << ": " << misses << " of " << got.size() << " elements off";
}

}  // namespace canzona::backend::test
