// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend reductions and fused element-wise optimizer kernels: the shared functors of
// ops/elementwise_ops.hpp run by plain loops (the cuda backend runs the same functors).
#include "cpu_backend.hpp"
#include "run_ops.hpp"

#include <canzona/core/error.hpp>
#include "elementwise_ops.hpp"
#include "item_ops.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace canzona::backend::cpu {
namespace {

/// Calls `fn(ptr)` with `data` cast to the element pointer type `type` names; `Ptr` is a
/// template so one lambda serves fp32 and bf16 storage.
template <typename Fn>
void dispatch(void* data, ElementType type, Fn&& fn) {
  switch (type) {
    case ElementType::kFloat32:
      fn(static_cast<float*>(data));
      return;
    case ElementType::kBFloat16:
      fn(static_cast<ops::bf16_bits*>(data));
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
      fn(static_cast<const ops::bf16_bits*>(data));
      return;
  }
  throw Error(fmt::format("cpu backend: unknown ElementType {}", static_cast<int>(type)));
}

/// Σ x[i]² in fp32. Eight interleaved partial sums per block of 1024 elements (vectorisable,
/// error ~128 u per block instead of ~n u for one running sum), the block sums combined in
/// double. The order is fixed, so the result is deterministic.
template <typename T>
float sum_squares_item(const T* x, std::int64_t n) {
  const ops::Square<T> square{x};
  constexpr std::int64_t kLanes = 8;
  constexpr std::int64_t kBlock = 1024;
  double total = 0.0;
  for (std::int64_t start = 0; start < n; start += kBlock) {
    const std::int64_t end = std::min(n, start + kBlock);
    float lanes[kLanes] = {};
    std::int64_t i = start;
    for (; i + kLanes <= end; i += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) lanes[l] += square(i + l);
    }
    for (; i < end; ++i) lanes[0] += square(i);
    float block = 0.0f;
    for (float lane : lanes) block += lane;
    total += block;
  }
  return static_cast<float>(total);
}

}  // namespace

void CpuBackend::do_sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                                float* out) {
  check_count(n, "sum_squares n");
  check_count(count, "sum_squares count");
  dispatch(x, type, [&](const auto* items) {
    for (std::int64_t i = 0; i < count; ++i) out[i] = sum_squares_item(items + i * n, n);
  });
}

void CpuBackend::do_count_nonfinite(Items<const float> x, std::int64_t n, int* counter) {
  check_count(n, "count_nonfinite n");
  int bad = 0;
  for (std::int64_t item = 0; item < x.count(); ++item) {
    const ops::NonfiniteFlag flag{x[item]};
    for (std::int64_t i = 0; i < n; ++i) bad += flag(i);
  }
  *counter += bad;
}

void CpuBackend::do_muon_momentum(Items<float> buf, Items<const float> g, Items<void> out,
                                  ElementType out_type, std::int64_t n, float mu, bool nesterov) {
  check_count(n, "muon_momentum n");
  if (buf.count() == 0) return;
  dispatch(out[0], out_type, [&](auto* typed) {
    using Out = std::remove_pointer_t<decltype(typed)>;
    for_each_item(buf.count(), n, ops::MuonMomentumItems<Out>{buf, g, out, mu, nesterov});
  });
}

void CpuBackend::do_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                              const float* sumsq, float eps) {
  check_count(n, "normalize n");
  check_count(count, "normalize count");
  dispatch(x, type, [&](auto* items) {
    for_each_row(count, n,
                 ops::Normalize<std::remove_pointer_t<decltype(items)>>{items, n, sumsq, eps});
  });
}

void CpuBackend::do_normalize_rms(Items<float> x, std::int64_t n, const float* sumsq, float eps) {
  check_count(n, "normalize_rms n");
  if (n == 0) return;
  for_each_item_row(x.count(), n, ops::NormalizeRmsItems{x, n, sumsq, eps});
}

void CpuBackend::do_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                          float beta) {
  check_count(n, "axpby n");
  dispatch(y, type, [&](auto* yp) {
    // Same type as y; x may be y itself, which an element-by-element loop handles.
    using T = std::remove_pointer_t<decltype(yp)>;
    for_each(n, ops::Axpby<T>{yp, static_cast<const T*>(x), alpha, beta});
  });
}

void CpuBackend::do_ema(Items<float> m, Items<const float> g, std::int64_t n, float beta) {
  check_count(n, "ema n");
  for_each_item(m.count(), n, ops::EmaItems{m, g, beta});
}

void CpuBackend::do_ema_square(Items<float> v, Items<const float> g, std::int64_t n, float beta) {
  check_count(n, "ema_square n");
  for_each_item(v.count(), n, ops::EmaSquareItems{v, g, beta});
}

void CpuBackend::do_adam_direction(Items<const float> m, Items<const float> v, Items<float> out,
                                   std::int64_t n, float bias1, float bias2, float eps) {
  check_count(n, "adam_direction n");
  for_each_item(m.count(), n, ops::AdamDirectionItems{m, v, out, bias1, bias2, eps});
}

void CpuBackend::do_divide_sqrt_eps(Items<const float> x, Items<const float> v, Items<float> out,
                                    std::int64_t n, float eps) {
  check_count(n, "divide_sqrt_eps n");
  for_each_item(x.count(), n, ops::DivideSqrtEpsItems{x, v, out, eps});
}

void CpuBackend::do_apply_update(Items<float> p, Items<const void> u, ElementType u_type,
                                 std::int64_t n, float lr, float wd, float scale, DecayOrder order,
                                 const float* ratio_num, const float* ratio_den) {
  check_count(n, "apply_update n");
  CANZONA_CHECK((ratio_num == nullptr) == (ratio_den == nullptr),
                "apply_update: ratio_num and ratio_den are given together or not at all");
  if (p.count() == 0) return;
  dispatch(u[0], u_type, [&](const auto* typed) {
    using U = std::remove_cv_t<std::remove_pointer_t<decltype(typed)>>;
    for_each_item_row(
        p.count(), n,
        ops::ApplyUpdateItems<U>{p, u, n, lr, wd, scale, order, ratio_num, ratio_den});
  });
}

void CpuBackend::do_adamw_step(Items<float> p, Items<const float> g, Items<float> m, Items<float> v,
                               std::int64_t n, float lr, float beta1, float beta2, float eps,
                               float wd, float bias1, float bias2) {
  check_count(n, "adamw_step n");
  for_each_item(p.count(), n,
                ops::AdamwStepItems{p, g, m, v, lr, beta1, beta2, eps, wd, bias1, bias2});
}

}  // namespace canzona::backend::cpu
