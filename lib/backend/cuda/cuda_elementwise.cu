// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CudaBackend's element-wise operations and small-matrix helpers: the shared functors of
// ops/elementwise_ops.hpp (the very code the cpu backend runs) through the one generic launch.
#include "cuda_backend.hpp"
#include "launch.cuh"

#include <canzona/core/error.hpp>
#include <canzona/cuda/device_guard.hpp>
#include "elementwise_ops.hpp"
#include "item_ops.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <type_traits>

namespace canzona::backend {
namespace {

namespace launch = cuda_launch;

/// Calls fn(ptr) with `data` cast to the element pointer type `type` names.
template <typename Ptr, typename Fn>
void dispatch(Ptr data, ElementType type, Fn&& fn) {
  using Byte = std::conditional_t<std::is_const_v<std::remove_pointer_t<Ptr>>, const void, void>;
  using F32 = std::conditional_t<std::is_const_v<Byte>, const float, float>;
  using B16 = std::conditional_t<std::is_const_v<Byte>, const ops::bf16_bits, ops::bf16_bits>;
  switch (type) {
    case ElementType::kFloat32:
      fn(static_cast<F32*>(static_cast<Byte*>(data)));
      return;
    case ElementType::kBFloat16:
      fn(static_cast<B16*>(static_cast<Byte*>(data)));
      return;
  }
  throw Error(fmt::format("cuda backend: unknown ElementType {}", static_cast<int>(type)));
}

template <typename T>
using element_t = std::remove_cv_t<std::remove_pointer_t<T>>;

}  // namespace

void CudaBackend::do_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                             std::int64_t n) {
  if (n <= 0) return;
  if (dst_type == src_type) {
    do_copy(dst, src, static_cast<std::size_t>(n) * element_size(dst_type));
    return;
  }
  const cuda::DeviceGuard guard(device_);
  if (src_type == ElementType::kFloat32) {
    launch::for_each(n,
                     ops::Convert<ops::bf16_bits, float>{static_cast<ops::bf16_bits*>(dst),
                                                         static_cast<const float*>(src)},
                     stream());
  } else {
    launch::for_each(n,
                     ops::Convert<float, ops::bf16_bits>{static_cast<float*>(dst),
                                                         static_cast<const ops::bf16_bits*>(src)},
                     stream());
  }
}

void CudaBackend::do_muon_momentum(Items<float> buf, Items<const float> g, Items<void> out,
                                   ElementType out_type, std::int64_t n, float mu, bool nesterov) {
  if (buf.count() == 0 || n <= 0) return;
  const cuda::DeviceGuard guard(device_);
  dispatch(out[0], out_type, [&](auto* typed) {
    using Out = element_t<decltype(typed)>;
    launch::for_each_item(buf.count(), n, ops::MuonMomentumItems<Out>{buf, g, out, mu, nesterov},
                          stream());
  });
}

void CudaBackend::do_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                               const float* sumsq, float eps) {
  const cuda::DeviceGuard guard(device_);
  dispatch(x, type, [&](auto* items) {
    launch::for_each_row(count, n, ops::Normalize<element_t<decltype(items)>>{items, n, sumsq, eps},
                         stream());
  });
}

void CudaBackend::do_normalize_rms(Items<float> x, std::int64_t n, const float* sumsq, float eps) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item_row(x.count(), n, ops::NormalizeRmsItems{x, n, sumsq, eps}, stream());
}

void CudaBackend::do_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                           float beta) {
  const cuda::DeviceGuard guard(device_);
  dispatch(y, type, [&](auto* yp) {
    using T = element_t<decltype(yp)>;
    launch::for_each(n, ops::Axpby<T>{yp, static_cast<const T*>(x), alpha, beta}, stream());
  });
}

void CudaBackend::do_ema(Items<float> m, Items<const float> g, std::int64_t n, float beta) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item(m.count(), n, ops::EmaItems{m, g, beta}, stream());
}

void CudaBackend::do_ema_square(Items<float> v, Items<const float> g, std::int64_t n, float beta) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item(v.count(), n, ops::EmaSquareItems{v, g, beta}, stream());
}

void CudaBackend::do_adam_direction(Items<const float> m, Items<const float> v, Items<float> out,
                                    std::int64_t n, float bias1, float bias2, float eps) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item(m.count(), n, ops::AdamDirectionItems{m, v, out, bias1, bias2, eps},
                        stream());
}

void CudaBackend::do_divide_sqrt_eps(Items<const float> x, Items<const float> v, Items<float> out,
                                     std::int64_t n, float eps) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item(x.count(), n, ops::DivideSqrtEpsItems{x, v, out, eps}, stream());
}

void CudaBackend::do_apply_update(Items<float> p, Items<const void> u, ElementType u_type,
                                  std::int64_t n, float lr, float wd, float scale, DecayOrder order,
                                  const float* ratio_num, const float* ratio_den) {
  CANZONA_CHECK((ratio_num == nullptr) == (ratio_den == nullptr),
                "apply_update: ratio_num and ratio_den are given together or not at all");
  if (p.count() == 0 || n <= 0) return;
  const cuda::DeviceGuard guard(device_);
  dispatch(u[0], u_type, [&](const auto* typed) {
    using U = element_t<decltype(typed)>;
    launch::for_each_item_row(
        p.count(), n, ops::ApplyUpdateItems<U>{p, u, n, lr, wd, scale, order, ratio_num, ratio_den},
        stream());
  });
}

void CudaBackend::do_adamw_step(Items<float> p, Items<const float> g, Items<float> m,
                                Items<float> v, std::int64_t n, float lr, float beta1, float beta2,
                                float eps, float wd, float bias1, float bias2) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item(p.count(), n,
                        ops::AdamwStepItems{p, g, m, v, lr, beta1, beta2, eps, wd, bias1, bias2},
                        stream());
}

// ---- small-matrix helpers -------------------------------------------------------------------

void CudaBackend::do_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_row(count, n, ops::AddDiagonal{a, n, value}, stream());
}

void CudaBackend::do_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                                       std::int64_t count, float eps, float exponent) {
  const int k = ops::inverse_root_order(exponent);
  if (k < 0) {
    throw Error(fmt::format(
        "cuda backend: scale_columns_pow exponent {} is not -1/2^k (k <= 8), the inverse roots "
        "the backends evaluate",
        exponent));
  }
  const cuda::DeviceGuard guard(device_);
  launch::for_each_row(count * n, n, ops::ScaleColumnsInverseRoot{q, w, out, n, eps, k}, stream());
}

void CudaBackend::do_reverse_columns(float* a, std::int64_t n, std::int64_t count) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_row(count * n, n / 2, ops::ReverseColumns{a, n}, stream());
}

void CudaBackend::do_permute_columns(Items<const float> a, std::int64_t rows, std::int64_t cols,
                                     const int* perm, Items<float> out) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item_grid(a.count(), rows, cols, ops::PermuteColumnsItems{a, cols, perm, out},
                             stream());
}

void CudaBackend::do_permute_rows(Items<const float> a, std::int64_t rows, std::int64_t cols,
                                  const int* perm, Items<float> out) {
  const cuda::DeviceGuard guard(device_);
  launch::for_each_item_grid(a.count(), rows, cols, ops::PermuteRowsItems{a, rows, cols, perm, out},
                             stream());
}

void CudaBackend::copy_items(Items<void> dst, Items<const void> src, std::size_t bytes) {
  bool words = bytes % 4 == 0;
  for (std::int64_t i = 0; i < dst.count() && words; ++i) {
    words = reinterpret_cast<std::uintptr_t>(dst[i]) % 4 == 0 &&
            reinterpret_cast<std::uintptr_t>(src[i]) % 4 == 0;
  }
  const auto n = static_cast<std::int64_t>(words ? bytes / 4 : bytes);
  if (words) {
    launch::for_each_item(
        dst.count(), n,
        [&](std::int64_t i) {
          return ops::CopyWords{static_cast<std::uint32_t*>(dst[i]),
                                static_cast<const std::uint32_t*>(src[i])};
        },
        stream());
  } else {
    launch::for_each_item(
        dst.count(), n,
        [&](std::int64_t i) {
          return ops::CopyBytes{static_cast<unsigned char*>(dst[i]),
                                static_cast<const unsigned char*>(src[i])};
        },
        stream());
  }
}

void CudaBackend::transpose_squares(const float* in, float* out, std::int64_t n,
                                    std::int64_t count) {
  launch::for_each_row(count * n, n, ops::TransposeSquares{in, out, n}, stream());
}

void CudaBackend::flip_columns_by_sign(float* q, std::int64_t m, std::int64_t n,
                                       const float* diag) {
  launch::for_each_row(m, n, ops::FlipColumnsBySign{q, n, diag}, stream());
}

}  // namespace canzona::backend
