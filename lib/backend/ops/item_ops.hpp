// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The functor of each item of a batched element-wise operation: the item's arrays taken from the
// operation's Items operands, the scalars derived from its arguments once, here. The cpu backend
// runs these makers in its loops (cpu/run_ops.hpp) and the cuda backend passes what they make in
// its kernel parameters (cuda/launch.cuh), so both backends build an item's functor, and compute
// its host-side scalars, the same way. Host code only (Items are host values); C++17.
#pragma once

#include "elementwise_ops.hpp"

#include <canzona/backend/backend.hpp>

#include <cstdint>

namespace canzona::backend::ops {

template <typename Out>
struct MuonMomentumItems {
  Items<float> buf;
  Items<const float> g;
  Items<void> out;
  float mu;
  bool nesterov;
  MuonMomentum<Out> operator()(std::int64_t i) const {
    return {buf[i], g[i], static_cast<Out*>(out[i]), mu, 1.0f - mu, nesterov};
  }
};

/// Rows functor per item: x_i's per-item scalar is sumsq[i].
struct NormalizeRmsItems {
  Items<float> x;
  std::int64_t n;
  const float* sumsq;
  float eps;
  NormalizeRms operator()(std::int64_t i) const { return {x[i], n, sumsq + i, eps}; }
};

struct EmaItems {
  Items<float> m;
  Items<const float> g;
  float beta;
  Ema operator()(std::int64_t i) const { return {m[i], g[i], beta, 1.0f - beta}; }
};

struct EmaSquareItems {
  Items<float> v;
  Items<const float> g;
  float beta;
  EmaSquare operator()(std::int64_t i) const { return {v[i], g[i], beta, 1.0f - beta}; }
};

struct AdamDirectionItems {
  Items<const float> m;
  Items<const float> v;
  Items<float> out;
  float bias1;
  float bias2;
  float eps;
  AdamDirection operator()(std::int64_t i) const { return {m[i], v[i], out[i], bias1, bias2, eps}; }
};

struct DivideSqrtEpsItems {
  Items<const float> x;
  Items<const float> v;
  Items<float> out;
  float eps;
  DivideSqrtEps operator()(std::int64_t i) const { return {x[i], v[i], out[i], eps}; }
};

/// Rows functor per item: item i's grafting ratio, when given, is ratio_num[i] / ratio_den[i].
template <typename U>
struct ApplyUpdateItems {
  Items<float> p;
  Items<const void> u;
  std::int64_t n;
  float lr;
  float wd;
  float scale;
  DecayOrder order;
  const float* ratio_num;
  const float* ratio_den;
  ApplyUpdate<U> operator()(std::int64_t i) const {
    return {p[i],
            static_cast<const U*>(u[i]),
            n,
            lr,
            scale,
            1.0f - lr * wd,
            order == DecayOrder::kBeforeUpdate,
            ratio_num == nullptr ? nullptr : ratio_num + i,
            ratio_den == nullptr ? nullptr : ratio_den + i};
  }
};

struct AdamwStepItems {
  Items<float> p;
  Items<const float> g;
  Items<float> m;
  Items<float> v;
  float lr;
  float beta1;
  float beta2;
  float eps;
  float wd;
  float bias1;
  float bias2;
  AdamwStep operator()(std::int64_t i) const {
    return {p[i],  g[i],         m[i], v[i],           lr,    beta1, 1.0f - beta1,
            beta2, 1.0f - beta2, eps,  1.0f - lr * wd, bias1, bias2};
  }
};

/// Rows functor per item (rows × cols grid): item i's permutation is perm + i·cols.
struct PermuteColumnsItems {
  Items<const float> a;
  std::int64_t cols;
  const int* perm;
  Items<float> out;
  PermuteColumns operator()(std::int64_t i) const { return {a[i], cols, perm + i * cols, out[i]}; }
};

/// Rows functor per item (rows × cols grid): item i's permutation is perm + i·rows.
struct PermuteRowsItems {
  Items<const float> a;
  std::int64_t rows;
  std::int64_t cols;
  const int* perm;
  Items<float> out;
  PermuteRows operator()(std::int64_t i) const { return {a[i], cols, perm + i * rows, out[i]}; }
};

}  // namespace canzona::backend::ops
