// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend: the Backend interface on host memory, OpenBLAS and LAPACKE. Internal to
// canzona_backend; users get one from make_cpu_backend() / make_backend("cpu").
#pragma once

#include <canzona/backend/backend.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace canzona::backend::cpu {

/// Grow-only fp32 scratch owned by the backend. An operation that needs temporary storage the
/// interface has no workspace argument for (gemm on bf16 data, per-column factors) takes it
/// from here: the first call with a new, larger size allocates, every later call reuses it, so
/// allocation happens once, during warm-up, never inside a timed step.
class Scratch {
 public:
  /// At least `count` floats; contents unspecified.
  float* floats(std::size_t count) {
    if (data_.size() < count) data_.resize(count);
    return data_.data();
  }
  std::size_t bytes() const noexcept { return data_.size() * sizeof(float); }

 private:
  std::vector<float> data_;
};

/// Every operation runs synchronously on the calling thread, in call order (OpenBLAS may use its
/// own threads inside gemm / eigh / orthonormalize), so synchronize() is a no-op and host copies
/// are plain memcpy. One backend is used by one thread at a time: the scratch is shared state.
/// Not final so tests can observe release().
class CpuBackend : public Backend {
 public:
  CpuBackend() = default;

  std::string_view name() const override { return "cpu"; }

  /// Bytes held by the grow-only scratch (lets tests check that warm calls don't grow it).
  std::size_t scratch_bytes() const noexcept { return scratch_.bytes(); }

 protected:
  void release(void* data) noexcept override;

  Buffer do_allocate(std::size_t bytes) override;
  void do_upload(void* dst, const void* host, std::size_t bytes) override;
  void do_download(void* host, const void* src, std::size_t bytes) override;
  void do_synchronize() override {}

  void do_fill_zero(void* dst, std::size_t bytes) override;
  void do_copy(Items<void> dst, Items<const void> src, std::size_t bytes) override;
  void do_copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                  std::size_t width, std::size_t rows) override;
  void do_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                  std::int64_t n) override;

  void do_gemm(const GemmArgs& args) override;
  void do_eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) override;
  std::size_t do_eigh_workspace_bytes(std::int64_t n, std::int64_t count) override;
  void do_orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) override;
  std::size_t do_orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) override;

  void do_sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                      float* out) override;
  void do_count_nonfinite(Items<const float> x, std::int64_t n, int* counter) override;
  void do_column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count,
                      float* out) override;

  void do_muon_momentum(Items<float> buf, Items<const float> g, Items<void> out,
                        ElementType out_type, std::int64_t n, float mu, bool nesterov) override;
  void do_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                    const float* sumsq, float eps) override;
  void do_normalize_rms(Items<float> x, std::int64_t n, const float* sumsq, float eps) override;
  void do_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                float beta) override;
  void do_ema(Items<float> m, Items<const float> g, std::int64_t n, float beta) override;
  void do_ema_square(Items<float> v, Items<const float> g, std::int64_t n, float beta) override;
  void do_adam_direction(Items<const float> m, Items<const float> v, Items<float> out,
                         std::int64_t n, float bias1, float bias2, float eps) override;
  void do_divide_sqrt_eps(Items<const float> x, Items<const float> v, Items<float> out,
                          std::int64_t n, float eps) override;
  void do_apply_update(Items<float> p, Items<const void> u, ElementType u_type, std::int64_t n,
                       float lr, float wd, float scale, DecayOrder order, const float* ratio_num,
                       const float* ratio_den) override;
  void do_adamw_step(Items<float> p, Items<const float> g, Items<float> m, Items<float> v,
                     std::int64_t n, float lr, float beta1, float beta2, float eps, float wd,
                     float bias1, float bias2) override;

  void do_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) override;
  void do_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                            std::int64_t count, float eps, float exponent) override;
  void do_reverse_columns(float* a, std::int64_t n, std::int64_t count) override;
  void do_argsort_descending(const float* values, std::int64_t n, std::int64_t count, int* perm,
                             void* workspace) override;
  std::size_t do_argsort_workspace_bytes(std::int64_t n, std::int64_t count) override;
  void do_permute_columns(Items<const float> a, std::int64_t rows, std::int64_t cols,
                          const int* perm, Items<float> out) override;
  void do_permute_rows(Items<const float> a, std::int64_t rows, std::int64_t cols, const int* perm,
                       Items<float> out) override;

 private:
  Scratch scratch_;
};

/// Throws canzona::Error unless `n` ≥ 0; `what` names the argument in the message.
void check_count(std::int64_t n, const char* what);
/// `value` as the 32-bit int BLAS and LAPACKE take; canzona::Error if it is negative or too big.
int to_int(std::int64_t value, const char* what);

}  // namespace canzona::backend::cpu
