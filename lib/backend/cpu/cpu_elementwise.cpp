// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend reductions and fused element-wise optimizer kernels: plain loops, fp32 arithmetic
// in the order the interface documents, bf16 storage rounded to nearest even on every store.
#include "cpu_backend.hpp"

#include <canzona/core/error.hpp>
#include "bf16.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace canzona::backend::cpu {
namespace {

float load(const float* p, std::int64_t i) { return p[i]; }
float load(const std::uint16_t* p, std::int64_t i) { return bf16_to_float(p[i]); }
void store(float* p, std::int64_t i, float value) { p[i] = value; }
void store(std::uint16_t* p, std::int64_t i, float value) { p[i] = float_to_bf16(value); }

/// Calls `fn(ptr)` with `data` cast to the element pointer type `type` names; `Ptr` is a
/// template so one lambda serves fp32 and bf16 storage.
template <typename Fn>
void dispatch(void* data, ElementType type, Fn&& fn) {
  switch (type) {
    case ElementType::kFloat32:
      fn(static_cast<float*>(data));
      return;
    case ElementType::kBFloat16:
      fn(static_cast<std::uint16_t*>(data));
      return;
  }
  throw Error(fmt::format("cpu backend: unknown ElementType {}", static_cast<int>(type)));
}

template <typename Fn>
void dispatch(const void* data, ElementType type, Fn&& fn) {
  switch (type) {
    case ElementType::kFloat32:
      fn(static_cast<const float*>(data));
      return;
    case ElementType::kBFloat16:
      fn(static_cast<const std::uint16_t*>(data));
      return;
  }
  throw Error(fmt::format("cpu backend: unknown ElementType {}", static_cast<int>(type)));
}

/// Σ x[i]² in fp32. Eight interleaved partial sums per block of 1024 elements (vectorisable,
/// error ~128 u per block instead of ~n u for one running sum), the block sums combined in
/// double. The order is fixed, so the result is deterministic.
template <typename T>
float sum_squares_item(const T* x, std::int64_t n) {
  constexpr std::int64_t kLanes = 8;
  constexpr std::int64_t kBlock = 1024;
  double total = 0.0;
  for (std::int64_t start = 0; start < n; start += kBlock) {
    const std::int64_t end = std::min(n, start + kBlock);
    float lanes[kLanes] = {};
    std::int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) {
        const float v = load(x, i + l);
        lanes[l] += v * v;
      }
    }
    for (; i < end; ++i) {
      const float v = load(x, i);
      lanes[0] += v * v;
    }
    float block = 0.0f;
    for (float lane : lanes) block += lane;
    total += block;
  }
  return static_cast<float>(total);
}

}  // namespace

void CpuBackend::sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                             float* out) {
  check_count(n, "sum_squares n");
  check_count(count, "sum_squares count");
  dispatch(x, type, [&](const auto* items) {
    for (std::int64_t i = 0; i < count; ++i) out[i] = sum_squares_item(items + i * n, n);
  });
}

void CpuBackend::count_nonfinite(const float* x, std::int64_t n, int* counter) {
  check_count(n, "count_nonfinite n");
  // Bit test instead of std::isfinite so the check survives -ffast-math style flags.
  int bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    bad += (std::bit_cast<std::uint32_t>(x[i]) & 0x7f800000U) == 0x7f800000U ? 1 : 0;
  }
  *counter += bad;
}

void CpuBackend::muon_momentum(float* buf, const float* g, void* out, ElementType out_type,
                               std::int64_t n, float mu, bool nesterov) {
  check_count(n, "muon_momentum n");
  const float one_minus_mu = 1.0f - mu;
  dispatch(out, out_type, [&](auto* o) {
    for (std::int64_t i = 0; i < n; ++i) {
      const float b = mu * buf[i] + one_minus_mu * g[i];
      buf[i] = b;
      store(o, i, nesterov ? one_minus_mu * g[i] + mu * b : b);
    }
  });
}

void CpuBackend::normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                           const float* sumsq, float eps) {
  check_count(n, "normalize n");
  check_count(count, "normalize count");
  dispatch(x, type, [&](auto* items) {
    for (std::int64_t item = 0; item < count; ++item) {
      const float denom = std::max(std::sqrt(sumsq[item]), eps);
      auto* xi = items + item * n;
      for (std::int64_t i = 0; i < n; ++i) store(xi, i, load(xi, i) / denom);
    }
  });
}

void CpuBackend::normalize_rms(float* x, std::int64_t n, const float* sumsq, float eps) {
  check_count(n, "normalize_rms n");
  if (n == 0) return;
  const float denom = eps + std::sqrt(*sumsq / static_cast<float>(n));
  for (std::int64_t i = 0; i < n; ++i) x[i] /= denom;
}

void CpuBackend::axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                       float beta) {
  check_count(n, "axpby n");
  dispatch(y, type, [&](auto* yp) {
    // Same type as y; x may be y itself, which an element-by-element loop handles.
    const auto* xp = static_cast<const std::remove_pointer_t<decltype(yp)>*>(x);
    for (std::int64_t i = 0; i < n; ++i) store(yp, i, alpha * load(xp, i) + beta * load(yp, i));
  });
}

void CpuBackend::ema(float* m, const float* g, std::int64_t n, float beta) {
  check_count(n, "ema n");
  const float one_minus_beta = 1.0f - beta;
  for (std::int64_t i = 0; i < n; ++i) m[i] = beta * m[i] + one_minus_beta * g[i];
}

void CpuBackend::ema_square(float* v, const float* g, std::int64_t n, float beta) {
  check_count(n, "ema_square n");
  const float one_minus_beta = 1.0f - beta;
  for (std::int64_t i = 0; i < n; ++i) v[i] = beta * v[i] + one_minus_beta * (g[i] * g[i]);
}

void CpuBackend::adam_direction(const float* m, const float* v, float* out, std::int64_t n,
                                float bias1, float bias2, float eps) {
  check_count(n, "adam_direction n");
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = (m[i] / bias1) / (std::sqrt(v[i] / bias2) + eps);
  }
}

void CpuBackend::divide_sqrt_eps(const float* x, const float* v, float* out, std::int64_t n,
                                 float eps) {
  check_count(n, "divide_sqrt_eps n");
  for (std::int64_t i = 0; i < n; ++i) out[i] = x[i] / (std::sqrt(v[i]) + eps);
}

void CpuBackend::apply_update(float* p, const void* u, ElementType u_type, std::int64_t n,
                              std::int64_t count, float lr, float wd, float scale, DecayOrder order,
                              const float* ratio_num, const float* ratio_den) {
  check_count(n, "apply_update n");
  check_count(count, "apply_update count");
  CANZONA_CHECK((ratio_num == nullptr) == (ratio_den == nullptr),
                "apply_update: ratio_num and ratio_den are given together or not at all");
  const float decay = 1.0f - lr * wd;
  dispatch(u, u_type, [&](const auto* updates) {
    for (std::int64_t item = 0; item < count; ++item) {
      float s = scale;
      if (ratio_num != nullptr) {
        s = scale * (std::sqrt(ratio_num[item]) / std::max(std::sqrt(ratio_den[item]), 1e-30f));
      }
      const float step = lr * s;
      float* pi = p + item * n;
      const auto* ui = updates + item * n;
      if (order == DecayOrder::kBeforeUpdate) {
        for (std::int64_t i = 0; i < n; ++i) pi[i] = pi[i] * decay - step * load(ui, i);
      } else {
        for (std::int64_t i = 0; i < n; ++i) pi[i] = (pi[i] - step * load(ui, i)) * decay;
      }
    }
  });
}

void CpuBackend::adamw_step(float* p, const float* g, float* m, float* v, std::int64_t n, float lr,
                            float beta1, float beta2, float eps, float wd, float bias1,
                            float bias2) {
  check_count(n, "adamw_step n");
  const float decay = 1.0f - lr * wd;
  const float one_minus_beta1 = 1.0f - beta1;
  const float one_minus_beta2 = 1.0f - beta2;
  for (std::int64_t i = 0; i < n; ++i) {
    const float mi = beta1 * m[i] + one_minus_beta1 * g[i];
    const float vi = beta2 * v[i] + one_minus_beta2 * (g[i] * g[i]);
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - lr * ((mi / bias1) / (std::sqrt(vi / bias2) + eps));
  }
}

}  // namespace canzona::backend::cpu
