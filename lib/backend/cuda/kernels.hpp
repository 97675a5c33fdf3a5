// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Host-side launchers of the cuda backend's own kernels (defined in the *_kernels.cu files).
// Each enqueues on `stream`, checks the launch and never synchronises or allocates.
#pragma once

#include <canzona/backend/backend.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>

namespace canzona::backend::detail {

// ---- element-wise (elementwise_kernels.cu) ------------------------------------------------------
/// dst_type != src_type; same-type copies are a cudaMemcpyAsync in the backend.
void launch_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                    std::int64_t n, cudaStream_t stream);
void launch_muon_momentum(float* buf, const float* g, void* out, ElementType out_type,
                          std::int64_t n, float mu, bool nesterov, cudaStream_t stream);
void launch_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                      const float* sumsq, float eps, cudaStream_t stream);
void launch_normalize_rms(float* x, std::int64_t n, const float* sumsq, float eps,
                          cudaStream_t stream);
void launch_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha, float beta,
                  cudaStream_t stream);
void launch_ema(float* m, const float* g, std::int64_t n, float beta, cudaStream_t stream);
void launch_ema_square(float* v, const float* g, std::int64_t n, float beta, cudaStream_t stream);
void launch_adam_direction(const float* m, const float* v, float* out, std::int64_t n, float bias1,
                           float bias2, float eps, cudaStream_t stream);
void launch_divide_sqrt_eps(const float* x, const float* v, float* out, std::int64_t n, float eps,
                            cudaStream_t stream);
void launch_apply_update(float* p, const void* u, ElementType u_type, std::int64_t n,
                         std::int64_t count, float lr, float wd, float scale, DecayOrder order,
                         const float* ratio_num, const float* ratio_den, cudaStream_t stream);
void launch_adamw_step(float* p, const float* g, float* m, float* v, std::int64_t n, float lr,
                       float beta1, float beta2, float eps, float wd, float bias1, float bias2,
                       cudaStream_t stream);

// ---- reductions (reduction_kernels.cu)
// ------------------------------------------------------------
/// Deterministic two-pass sum of squares: per-chunk partials go to `partials` (capacity
/// `partials_capacity` floats, owned by the backend), a second pass adds them in a fixed order.
void launch_sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                        float* out, float* partials, std::int64_t partials_capacity,
                        cudaStream_t stream);
void launch_count_nonfinite(const float* x, std::int64_t n, int* counter, cudaStream_t stream);
void launch_column_dots(const float* a, const float* b, std::int64_t n, float* out,
                        cudaStream_t stream);

// ---- small-matrix helpers (matrix_kernels.cu)
// ----------------------------------------------------
void launch_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value,
                         cudaStream_t stream);
void launch_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                              std::int64_t count, float eps, float exponent, cudaStream_t stream);
void launch_reverse_columns(float* a, std::int64_t n, std::int64_t count, cudaStream_t stream);
void launch_argsort_descending(const float* values, std::int64_t n, int* perm, cudaStream_t stream);
void launch_permute_columns(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                            float* out, cudaStream_t stream);
void launch_permute_rows(const float* a, std::int64_t rows, std::int64_t cols, const int* perm,
                         float* out, cudaStream_t stream);

// ---- solver helpers (solver_kernels.cu)
// ----------------------------------------------------------
/// Transposes `count` n×n matrices in place (cuSOLVER's column-major eigenvectors → row-major).
void launch_transpose_square(float* a, std::int64_t n, std::int64_t count, cudaStream_t stream);
/// dst (cols×rows, row-major) = srcᵀ for a rows×cols row-major src; dst must not alias src.
/// With `row_signs` (rows entries), src row r is negated on the way when row_signs[r] < 0.
void launch_transpose(const float* src, std::int64_t rows, std::int64_t cols,
                      const float* row_signs, float* dst, cudaStream_t stream);
/// diag[j] = a[j + j·ld] for j < n (the diagonal of a column-major matrix).
void launch_copy_diagonal(const float* a, std::int64_t ld, std::int64_t n, float* diag,
                          cudaStream_t stream);
/// Folds `count` cuSOLVER info values into status[0] (number of nonzero infos, accumulated)
/// and status[1] (one nonzero info value), so failures surface without a host round trip.
void launch_accumulate_solver_info(const int* info, std::int64_t count, int* status,
                                   cudaStream_t stream);

}  // namespace canzona::backend::detail
