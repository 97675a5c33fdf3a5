// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Fused element-wise kernels of the cuda backend (momentum, normalisation, Adam/AdamW, decoupled
// weight-decay updates, conversion). One grid-stride pass each, fp32 arithmetic throughout.
#include "kernel_utils.cuh"
#include "kernels.hpp"

#include <canzona/cuda/check.hpp>

#include <cuda_bf16.h>

namespace canzona::backend::detail {
namespace {

using bf16 = __nv_bfloat16;

template <typename Dst, typename Src>
__global__ void convert_kernel(Dst* dst, const Src* src, std::int64_t n) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    store(dst, i, load(src, i));
  }
}

template <typename Out>
__global__ void muon_momentum_kernel(float* buf, const float* g, Out* out, std::int64_t n, float mu,
                                     bool nesterov) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    const float gi = g[i];
    const float b = mu * buf[i] + (1.0f - mu) * gi;
    buf[i] = b;
    store(out, i, nesterov ? (1.0f - mu) * gi + mu * b : b);
  }
}

template <typename T>
__global__ void normalize_kernel(T* x, std::int64_t n, std::int64_t count, const float* sumsq,
                                 float eps) {
  const std::int64_t total = n * count;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    const float denom = fmaxf(sqrtf(sumsq[i / n]), eps);
    store(x, i, load(x, i) / denom);
  }
}

__global__ void normalize_rms_kernel(float* x, std::int64_t n, const float* sumsq, float eps) {
  const float denom = eps + sqrtf(*sumsq / static_cast<float>(n));
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    x[i] = x[i] / denom;
  }
}

template <typename T>
__global__ void axpby_kernel(T* y, const T* x, std::int64_t n, float alpha, float beta) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    store(y, i, alpha * load(x, i) + beta * load(y, i));
  }
}

__global__ void ema_kernel(float* m, const float* g, std::int64_t n, float beta) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    m[i] = beta * m[i] + (1.0f - beta) * g[i];
  }
}

__global__ void ema_square_kernel(float* v, const float* g, std::int64_t n, float beta) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    const float gi = g[i];
    v[i] = beta * v[i] + (1.0f - beta) * gi * gi;
  }
}

__global__ void adam_direction_kernel(const float* m, const float* v, float* out, std::int64_t n,
                                      float bias1, float bias2, float eps) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    out[i] = (m[i] / bias1) / (sqrtf(v[i] / bias2) + eps);
  }
}

__global__ void divide_sqrt_eps_kernel(const float* x, const float* v, float* out, std::int64_t n,
                                       float eps) {
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    out[i] = x[i] / (sqrtf(v[i]) + eps);
  }
}

template <typename U>
__global__ void apply_update_kernel(float* p, const U* u, std::int64_t n, std::int64_t count,
                                    float lr, float wd, float scale, bool decay_first,
                                    const float* ratio_num, const float* ratio_den) {
  const std::int64_t total = n * count;
  const float decay = 1.0f - lr * wd;
  for (std::int64_t i = thread_index(); i < total; i += grid_stride()) {
    float s = scale;
    if (ratio_num != nullptr) {
      const std::int64_t item = i / n;
      s *= sqrtf(ratio_num[item]) / fmaxf(sqrtf(ratio_den[item]), 1e-30f);
    }
    const float step = lr * s * load(u, i);
    p[i] = decay_first ? p[i] * decay - step : (p[i] - step) * decay;
  }
}

__global__ void adamw_step_kernel(float* p, const float* g, float* m, float* v, std::int64_t n,
                                  float lr, float beta1, float beta2, float eps, float wd,
                                  float bias1, float bias2) {
  const float decay = 1.0f - lr * wd;
  for (std::int64_t i = thread_index(); i < n; i += grid_stride()) {
    const float gi = g[i];
    const float mi = beta1 * m[i] + (1.0f - beta1) * gi;
    const float vi = beta2 * v[i] + (1.0f - beta2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * decay - lr * (mi / bias1) / (sqrtf(vi / bias2) + eps);
  }
}

}  // namespace

void launch_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                    std::int64_t n, cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  if (dst_type == ElementType::kBFloat16 && src_type == ElementType::kFloat32) {
    convert_kernel<<<grid_for(n), kThreads, 0, stream>>>(static_cast<bf16*>(dst),
                                                         static_cast<const float*>(src), n);
  } else if (dst_type == ElementType::kFloat32 && src_type == ElementType::kBFloat16) {
    convert_kernel<<<grid_for(n), kThreads, 0, stream>>>(static_cast<float*>(dst),
                                                         static_cast<const bf16*>(src), n);
  } else {
    CANZONA_CHECK(false, "launch_convert needs two different element types");
  }
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_muon_momentum(float* buf, const float* g, void* out, ElementType out_type,
                          std::int64_t n, float mu, bool nesterov, cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  if (out_type == ElementType::kBFloat16) {
    muon_momentum_kernel<<<grid_for(n), kThreads, 0, stream>>>(buf, g, static_cast<bf16*>(out), n,
                                                               mu, nesterov);
  } else {
    muon_momentum_kernel<<<grid_for(n), kThreads, 0, stream>>>(buf, g, static_cast<float*>(out), n,
                                                               mu, nesterov);
  }
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                      const float* sumsq, float eps, cudaStream_t stream) {
  if (n <= 0 || count <= 0) {
    return;
  }
  const unsigned grid = grid_for(n * count);
  if (type == ElementType::kBFloat16) {
    normalize_kernel<<<grid, kThreads, 0, stream>>>(static_cast<bf16*>(x), n, count, sumsq, eps);
  } else {
    normalize_kernel<<<grid, kThreads, 0, stream>>>(static_cast<float*>(x), n, count, sumsq, eps);
  }
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_normalize_rms(float* x, std::int64_t n, const float* sumsq, float eps,
                          cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  normalize_rms_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, n, sumsq, eps);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha, float beta,
                  cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  if (type == ElementType::kBFloat16) {
    axpby_kernel<<<grid_for(n), kThreads, 0, stream>>>(static_cast<bf16*>(y),
                                                       static_cast<const bf16*>(x), n, alpha, beta);
  } else {
    axpby_kernel<<<grid_for(n), kThreads, 0, stream>>>(
        static_cast<float*>(y), static_cast<const float*>(x), n, alpha, beta);
  }
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_ema(float* m, const float* g, std::int64_t n, float beta, cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  ema_kernel<<<grid_for(n), kThreads, 0, stream>>>(m, g, n, beta);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_ema_square(float* v, const float* g, std::int64_t n, float beta, cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  ema_square_kernel<<<grid_for(n), kThreads, 0, stream>>>(v, g, n, beta);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_adam_direction(const float* m, const float* v, float* out, std::int64_t n, float bias1,
                           float bias2, float eps, cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  adam_direction_kernel<<<grid_for(n), kThreads, 0, stream>>>(m, v, out, n, bias1, bias2, eps);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_divide_sqrt_eps(const float* x, const float* v, float* out, std::int64_t n, float eps,
                            cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  divide_sqrt_eps_kernel<<<grid_for(n), kThreads, 0, stream>>>(x, v, out, n, eps);
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_apply_update(float* p, const void* u, ElementType u_type, std::int64_t n,
                         std::int64_t count, float lr, float wd, float scale, DecayOrder order,
                         const float* ratio_num, const float* ratio_den, cudaStream_t stream) {
  if (n <= 0 || count <= 0) {
    return;
  }
  CANZONA_CHECK((ratio_num == nullptr) == (ratio_den == nullptr),
                "apply_update needs both ratio_num and ratio_den, or neither");
  const bool decay_first = order == DecayOrder::kBeforeUpdate;
  const unsigned grid = grid_for(n * count);
  if (u_type == ElementType::kBFloat16) {
    apply_update_kernel<<<grid, kThreads, 0, stream>>>(
        p, static_cast<const bf16*>(u), n, count, lr, wd, scale, decay_first, ratio_num, ratio_den);
  } else {
    apply_update_kernel<<<grid, kThreads, 0, stream>>>(p, static_cast<const float*>(u), n, count,
                                                       lr, wd, scale, decay_first, ratio_num,
                                                       ratio_den);
  }
  CANZONA_CUDA_CHECK_LAUNCH();
}

void launch_adamw_step(float* p, const float* g, float* m, float* v, std::int64_t n, float lr,
                       float beta1, float beta2, float eps, float wd, float bias1, float bias2,
                       cudaStream_t stream) {
  if (n <= 0) {
    return;
  }
  adamw_step_kernel<<<grid_for(n), kThreads, 0, stream>>>(p, g, m, v, n, lr, beta1, beta2, eps, wd,
                                                          bias1, bias2);
  CANZONA_CUDA_CHECK_LAUNCH();
}

}  // namespace canzona::backend::detail
