// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Where optimizer kernels run. The optimizers (lib/optim) are written once against this
// interface; `cpu` (OpenBLAS + LAPACKE) and `cuda` (cuBLAS + cuSOLVER + fused kernels) implement
// it. Host-clean: no CUDA type appears here.
//
// Conventions for every operation:
//  - Pointers are in the backend's memory (host for cpu, device for cuda), from allocate().
//  - Matrices are ROW-MAJOR, [rows, cols] as PyTorch stores an nn.Linear weight [out, in];
//    `ld` is the row stride in elements.
//  - Work is enqueued in order on the backend's one stream and may be asynchronous: nothing
//    here synchronises the host except synchronize(), download() and the explicitly blocking
//    queries. No operation allocates memory; workspaces are sized by the *_workspace_bytes
//    queries and allocated once by the caller, outside the timed step.
//  - Every public operation is counted (op_counts()) before the implementation's do_* hook runs,
//    so the cpu and cuda backends report the same operations per step for the same calls.
//  - Scalars that depend on data (norms, counters) stay in backend memory (`const float*` /
//    `int*` arguments) so a step never waits for the host; hyper-parameters are host values.
//  - Batched operations act on `count` equally shaped items laid out back to back (item i
//    starts at i·stride elements, stride = rows·cols unless stated), or, where they take Items
//    (items.hpp), on arrays anywhere: one operation for a whole group of matrices whose state
//    arrays were allocated one by one. Every Items operand of one call has the same count.
//  - Element-wise arithmetic is fp32 with one rounding per operation (never fused into an FMA),
//    written once in lib/backend/ops/ and run by both backends, so the cpu and cuda backends give
//    the same bits for every element-wise operation and for column_dots; the other reductions,
//    GEMMs and solvers agree to rounding (their summation orders differ).
#pragma once

#include "canzona/backend/items.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string_view>

namespace canzona::backend {

/// Storage type of an array. bf16 is stored as its 16-bit pattern (upper half of an fp32);
/// fp32 → bf16 rounds to nearest even and turns every NaN into 0x7FC0.
enum class ElementType { kFloat32, kBFloat16 };

/// Bytes of one element.
std::size_t element_size(ElementType type);

enum class Trans { kNo, kYes };

/// Order of decoupled weight decay relative to the update in apply_update.
enum class DecayOrder {
  kBeforeUpdate,  ///< p ← p·(1 − lr·wd) − lr·s·u   (Muon, Shampoo, AdamW)
  kAfterUpdate,   ///< p ← (p − lr·s·u)·(1 − lr·wd)   (SOAP)
};

class Backend;

/// Memory from Backend::allocate, released by its owner when destroyed. Move-only.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Backend* owner, void* data, std::size_t bytes)
      : owner_(owner), data_(data), bytes_(bytes) {}
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer();

  void* data() const noexcept { return data_; }
  std::size_t bytes() const noexcept { return bytes_; }
  template <typename T>
  T* as() const noexcept {
    return static_cast<T*>(data_);
  }

 private:
  void reset() noexcept;
  Backend* owner_ = nullptr;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Arguments of one (optionally strided-batched) GEMM, row-major:
///   C_i = alpha · op(A_i) · op(B_i) + beta · C_i,  op(A_i) is m×k, op(B_i) is k×n, C_i is m×n,
/// for i < batch, with A_i = a + i·stride_a elements (likewise B, C). A and B share `ab_type`;
/// C has `c_type`. Accumulation is fp32 whatever the storage types. C must not alias A or B.
struct GemmArgs {
  Trans trans_a = Trans::kNo;
  Trans trans_b = Trans::kNo;
  std::int64_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  const void* a = nullptr;
  std::int64_t lda = 0;
  const void* b = nullptr;
  std::int64_t ldb = 0;
  float beta = 0.0f;
  void* c = nullptr;
  std::int64_t ldc = 0;
  ElementType ab_type = ElementType::kFloat32;
  ElementType c_type = ElementType::kFloat32;
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
};

/// What a backend has been asked to do. Counted in the interface (Backend's public methods), before
/// any implementation runs, so the cpu and cuda backends count the same numbers for the same
/// calls: "backend operations per step" is measured on a CPU exactly as a GPU would see it.
struct OpCounts {
  /// Enqueued work: copies, conversions, uploads, downloads, GEMMs, solvers, reductions and
  /// element-wise kernels, one per call whatever its size.
  std::uint64_t operations = 0;
  /// Host waits: synchronize() and download().
  std::uint64_t synchronizations = 0;
  /// allocate() calls and their bytes (none belong inside a step).
  std::uint64_t allocations = 0;
  std::uint64_t allocated_bytes = 0;
};

/// The counts between two snapshots (later − earlier), e.g. of one step.
OpCounts operator-(const OpCounts& later, const OpCounts& earlier);

class Backend {
 public:
  virtual ~Backend() = default;
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  /// "cpu" or "cuda".
  virtual std::string_view name() const = 0;
  /// The CUDA device this backend's memory and work live on; -1 for host memory (cpu). The
  /// executor refuses to pair a backend with communicators on another device.
  virtual int device() const noexcept { return -1; }

  /// Operations, host synchronisations and allocations requested since construction.
  const OpCounts& op_counts() const noexcept { return counts_; }

  // ---- memory (outside timed steps) -------------------------------------------------------
  /// Zero-filled memory of `bytes` bytes, aligned to 256 bytes. Blocking.
  Buffer allocate(std::size_t bytes) {
    ++counts_.allocations;
    counts_.allocated_bytes += bytes;
    return do_allocate(bytes);
  }
  /// Host → backend copy, ordered on the stream; `host` must stay valid until synchronize().
  void upload(void* dst, const void* host, std::size_t bytes) {
    ++counts_.operations;
    do_upload(dst, host, bytes);
  }
  /// Backend → host copy. Blocking: returns when `host` holds the data.
  void download(void* host, const void* src, std::size_t bytes) {
    ++counts_.operations;
    ++counts_.synchronizations;
    do_download(host, src, bytes);
  }
  /// Blocks the host until all enqueued work is done.
  void synchronize() {
    ++counts_.synchronizations;
    do_synchronize();
  }

  // ---- data movement ------------------------------------------------------------------------
  void fill_zero(void* dst, std::size_t bytes) {
    ++counts_.operations;
    do_fill_zero(dst, bytes);
  }
  /// dst_i ← src_i, `bytes` bytes per item (one copy, or a batch of equal-sized ones).
  void copy(Items<void> dst, Items<const void> src, std::size_t bytes) {
    count_batch("copy", {dst.count(), src.count()});
    do_copy(dst, src, bytes);
  }
  /// 2-D strided copy with cudaMemcpy2D semantics: `rows` rows of `width` bytes, row i read
  /// from src + i·src_pitch and written to dst + i·dst_pitch (pitches in bytes, each ≥ width).
  /// Moves a column block of a row-major matrix, e.g. a row-parallel TP shard into its place in
  /// the gathered matrix. Enqueued on the stream like copy(); source and destination must not
  /// overlap. canzona::Error when a pitch is smaller than `width`. The default runs one copy()
  /// per row; backends override it with one call.
  void copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
               std::size_t width, std::size_t rows) {
    ++counts_.operations;
    do_copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
  }
  /// dst[i] = convert(src[i]); fp32 → bf16 rounds to nearest even.
  void convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
               std::int64_t n) {
    ++counts_.operations;
    do_convert(dst, dst_type, src, src_type, n);
  }

  // ---- dense linear algebra -----------------------------------------------------------------
  void gemm(const GemmArgs& args) {
    ++counts_.operations;
    do_gemm(args);
  }
  /// Symmetric eigendecomposition of `count` n×n fp32 matrices (each read from its lower and
  /// upper triangle alike; callers pass symmetric matrices). On return each matrix holds its
  /// eigenvectors as COLUMNS (a[r·n + j] is component r of eigenvector j) and w[i·n + j] the
  /// eigenvalues in ASCENDING order. `workspace` has eigh_workspace_bytes(n, count) bytes.
  void eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) {
    ++counts_.operations;
    do_eigh(n, count, a, w, workspace);
  }
  std::size_t eigh_workspace_bytes(std::int64_t n, std::int64_t count) {
    return do_eigh_workspace_bytes(n, count);
  }
  /// Replaces the m×n (m ≥ n) fp32 matrix `a` by the Q factor of its thin QR decomposition,
  /// with column signs chosen so that diag(R) ≥ 0 (unique for full-rank input).
  void orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) {
    ++counts_.operations;
    do_orthonormalize(m, n, a, workspace);
  }
  std::size_t orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) {
    return do_orthonormalize_workspace_bytes(m, n);
  }

  // ---- reductions (results stay in backend memory) ------------------------------------------
  /// out[i] = Σ_j x_i[j]² over `count` items of n elements each (fp32 accumulation).
  void sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                   float* out) {
    ++counts_.operations;
    do_sum_squares(x, type, n, count, out);
  }
  /// *counter += number of NaN/Inf elements of the items x_i (n fp32 each). Lets a step detect
  /// bad gradients without a host synchronisation; callers read the counter after synchronize().
  void count_nonfinite(Items<const float> x, std::int64_t n, int* counter) {
    count_batch("count_nonfinite", {x.count()});
    do_count_nonfinite(x, n, counter);
  }
  /// out_i[j] = Σ_r a_i[r·n + j]·b_i[r·n + j], i.e. diag(a_iᵀ·b_i), for `count` pairs of n×n
  /// fp32 matrices back to back (a_i = a + i·n², likewise b_i; out_i = out + i·n). Each sum runs
  /// over r in order from +0 with one rounding per product and per sum (ops::ColumnDots), so
  /// the cpu and cuda backends give the same bits.
  void column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count, float* out) {
    ++counts_.operations;
    do_column_dots(a, b, n, count, out);
  }

  // ---- fused element-wise kernels -----------------------------------------------------------
  /// Muon momentum, per item: buf ← μ·buf + (1 − μ)·g; out ← nesterov ? (1 − μ)·g + μ·buf :
  /// buf. `out` may be bf16 (the NS input); buf and g are fp32.
  void muon_momentum(Items<float> buf, Items<const float> g, Items<void> out, ElementType out_type,
                     std::int64_t n, float mu, bool nesterov) {
    count_batch("muon_momentum", {buf.count(), g.count(), out.count()});
    do_muon_momentum(buf, g, out, out_type, n, mu, nesterov);
  }
  /// Frobenius normalisation of `count` items of n elements: x_i ← x_i / max(sqrt(sumsq[i]), eps)
  /// (a NaN norm gives NaN, it is not clamped to eps).
  void normalize(void* x, ElementType type, std::int64_t n, std::int64_t count, const float* sumsq,
                 float eps) {
    ++counts_.operations;
    do_normalize(x, type, n, count, sumsq, eps);
  }
  /// RMS normalisation per item: x_i ← x_i / (eps + sqrt(sumsq[i] / n)).
  void normalize_rms(Items<float> x, std::int64_t n, const float* sumsq, float eps) {
    count_batch("normalize_rms", {x.count()});
    do_normalize_rms(x, n, sumsq, eps);
  }
  /// y ← alpha·x + beta·y (x and y of the same type; x may equal y).
  void axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha, float beta) {
    ++counts_.operations;
    do_axpby(y, x, type, n, alpha, beta);
  }
  /// m ← β·m + (1 − β)·g, per item.
  void ema(Items<float> m, Items<const float> g, std::int64_t n, float beta) {
    count_batch("ema", {m.count(), g.count()});
    do_ema(m, g, n, beta);
  }
  /// v ← β·v + (1 − β)·g², per item.
  void ema_square(Items<float> v, Items<const float> g, std::int64_t n, float beta) {
    count_batch("ema_square", {v.count(), g.count()});
    do_ema_square(v, g, n, beta);
  }
  /// out ← (m / bias1) / (sqrt(v / bias2) + eps), per item (Adam direction; out may alias m).
  void adam_direction(Items<const float> m, Items<const float> v, Items<float> out, std::int64_t n,
                      float bias1, float bias2, float eps) {
    count_batch("adam_direction", {m.count(), v.count(), out.count()});
    do_adam_direction(m, v, out, n, bias1, bias2, eps);
  }
  /// out ← x / (sqrt(v) + eps), per item (SOAP's rotated-basis division; out may alias x).
  void divide_sqrt_eps(Items<const float> x, Items<const float> v, Items<float> out, std::int64_t n,
                       float eps) {
    count_batch("divide_sqrt_eps", {x.count(), v.count(), out.count()});
    do_divide_sqrt_eps(x, v, out, n, eps);
  }
  /// Decoupled-weight-decay update of `count` items of n elements (p fp32, u of `u_type`):
  ///   s_i = scale · (ratio_num ? sqrt(ratio_num[i]) / max(sqrt(ratio_den[i]), 1e-30) : 1)
  ///   kBeforeUpdate: p_i ← p_i·(1 − lr·wd) − lr·s_i·u_i;  kAfterUpdate: p_i ← (p_i −
  ///   lr·s_i·u_i)·(1 − lr·wd)
  /// The optional norm ratio implements Shampoo's grafting without a host round trip.
  void apply_update(float* p, const void* u, ElementType u_type, std::int64_t n, std::int64_t count,
                    float lr, float wd, float scale, DecayOrder order, const float* ratio_num,
                    const float* ratio_den) {
    apply_update(back_to_back(p, count, n),
                 Items<const void>(u, count, static_cast<std::size_t>(n) * element_size(u_type)),
                 u_type, n, lr, wd, scale, order, ratio_num, ratio_den);
  }
  /// The same for items anywhere (ratio_num[i] / ratio_den[i] belong to item i).
  void apply_update(Items<float> p, Items<const void> u, ElementType u_type, std::int64_t n,
                    float lr, float wd, float scale, DecayOrder order, const float* ratio_num,
                    const float* ratio_den) {
    count_batch("apply_update", {p.count(), u.count()});
    do_apply_update(p, u, u_type, n, lr, wd, scale, order, ratio_num, ratio_den);
  }
  /// One fused AdamW step (bias-corrected with the host scalars bias1 = 1 − β1^t, bias2 = 1 −
  /// β2^t):
  ///   m ← β1·m + (1 − β1)·g; v ← β2·v + (1 − β2)·g²; p ← p·(1 − lr·wd) −
  ///   lr·(m/bias1)/(sqrt(v/bias2) + eps)
  /// Per item of n elements.
  void adamw_step(Items<float> p, Items<const float> g, Items<float> m, Items<float> v,
                  std::int64_t n, float lr, float beta1, float beta2, float eps, float wd,
                  float bias1, float bias2) {
    count_batch("adamw_step", {p.count(), g.count(), m.count(), v.count()});
    do_adamw_step(p, g, m, v, n, lr, beta1, beta2, eps, wd, bias1, bias2);
  }

  // ---- small-matrix helpers for the preconditioners (n×n fp32, `count` back to back) -------
  /// a_i ← a_i + value·I.
  void add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) {
    ++counts_.operations;
    do_add_diagonal(a, n, count, value);
  }
  /// out_i[r, j] = q_i[r, j] · (max(w_i[j], 0) + eps)^exponent  (columns of eigenvectors scaled
  /// for an inverse root; out_i · q_iᵀ is then the root). `exponent` must be −1/2^k, k ≤ 8
  /// (canzona::Error otherwise): the root is k correctly rounded square roots and a division,
  /// which both backends evaluate to the same bits (powf is not correctly rounded). A NaN
  /// eigenvalue gives a NaN column (max keeps NaN). out may alias q.
  void scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                         std::int64_t count, float eps, float exponent) {
    ++counts_.operations;
    do_scale_columns_pow(q, w, out, n, count, eps, exponent);
  }
  /// Reverses the column order of `count` n×n matrices in place (ascending → descending
  /// eigenvalue order).
  void reverse_columns(float* a, std::int64_t n, std::int64_t count) {
    ++counts_.operations;
    do_reverse_columns(a, n, count);
  }
  /// perm_i ← indices (0 … n−1) that sort values_i in DESCENDING order, for `count` segments
  /// of n values back to back (values_i = values + i·n, perm_i = perm + i·n); ties by lower
  /// index (−0 ties with +0), every NaN last (in index order). `workspace` has
  /// argsort_workspace_bytes(n, count) bytes.
  void argsort_descending(const float* values, std::int64_t n, std::int64_t count, int* perm,
                          void* workspace) {
    ++counts_.operations;
    do_argsort_descending(values, n, count, perm, workspace);
  }
  std::size_t argsort_workspace_bytes(std::int64_t n, std::int64_t count) {
    return do_argsort_workspace_bytes(n, count);
  }
  /// out_i[r, j] = a_i[r, perm_i[j]] for each item's rows×cols matrix, perm_i = perm + i·cols
  /// (the permutations back to back; out must not alias a).
  void permute_columns(Items<const float> a, std::int64_t rows, std::int64_t cols, const int* perm,
                       Items<float> out) {
    count_batch("permute_columns", {a.count(), out.count()});
    do_permute_columns(a, rows, cols, perm, out);
  }
  /// out_i[r, :] = a_i[perm_i[r], :] for each item's rows×cols matrix, perm_i = perm + i·rows
  /// (the permutations back to back; out must not alias a).
  void permute_rows(Items<const float> a, std::int64_t rows, std::int64_t cols, const int* perm,
                    Items<float> out) {
    count_batch("permute_rows", {a.count(), out.count()});
    do_permute_rows(a, rows, cols, perm, out);
  }

 protected:
  friend class Buffer;
  /// Frees memory from allocate(); never throws.
  virtual void release(void* data) noexcept = 0;

  // Implementations of the operations above (called once counted; see op_counts()).
  virtual Buffer do_allocate(std::size_t bytes) = 0;
  virtual void do_upload(void* dst, const void* host, std::size_t bytes) = 0;
  virtual void do_download(void* host, const void* src, std::size_t bytes) = 0;
  virtual void do_synchronize() = 0;
  virtual void do_fill_zero(void* dst, std::size_t bytes) = 0;
  virtual void do_copy(Items<void> dst, Items<const void> src, std::size_t bytes) = 0;
  /// The default runs one do_copy() per row; backends override it with one call.
  virtual void do_copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                          std::size_t width, std::size_t rows);
  virtual void do_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                          std::int64_t n) = 0;
  virtual void do_gemm(const GemmArgs& args) = 0;
  virtual void do_eigh(std::int64_t n, std::int64_t count, float* a, float* w, void* workspace) = 0;
  virtual std::size_t do_eigh_workspace_bytes(std::int64_t n, std::int64_t count) = 0;
  virtual void do_orthonormalize(std::int64_t m, std::int64_t n, float* a, void* workspace) = 0;
  virtual std::size_t do_orthonormalize_workspace_bytes(std::int64_t m, std::int64_t n) = 0;
  virtual void do_sum_squares(const void* x, ElementType type, std::int64_t n, std::int64_t count,
                              float* out) = 0;
  virtual void do_count_nonfinite(Items<const float> x, std::int64_t n, int* counter) = 0;
  virtual void do_column_dots(const float* a, const float* b, std::int64_t n, std::int64_t count,
                              float* out) = 0;
  virtual void do_muon_momentum(Items<float> buf, Items<const float> g, Items<void> out,
                                ElementType out_type, std::int64_t n, float mu, bool nesterov) = 0;
  virtual void do_normalize(void* x, ElementType type, std::int64_t n, std::int64_t count,
                            const float* sumsq, float eps) = 0;
  virtual void do_normalize_rms(Items<float> x, std::int64_t n, const float* sumsq, float eps) = 0;
  virtual void do_axpby(void* y, const void* x, ElementType type, std::int64_t n, float alpha,
                        float beta) = 0;
  virtual void do_ema(Items<float> m, Items<const float> g, std::int64_t n, float beta) = 0;
  virtual void do_ema_square(Items<float> v, Items<const float> g, std::int64_t n, float beta) = 0;
  virtual void do_adam_direction(Items<const float> m, Items<const float> v, Items<float> out,
                                 std::int64_t n, float bias1, float bias2, float eps) = 0;
  virtual void do_divide_sqrt_eps(Items<const float> x, Items<const float> v, Items<float> out,
                                  std::int64_t n, float eps) = 0;
  virtual void do_apply_update(Items<float> p, Items<const void> u, ElementType u_type,
                               std::int64_t n, float lr, float wd, float scale, DecayOrder order,
                               const float* ratio_num, const float* ratio_den) = 0;
  virtual void do_adamw_step(Items<float> p, Items<const float> g, Items<float> m, Items<float> v,
                             std::int64_t n, float lr, float beta1, float beta2, float eps,
                             float wd, float bias1, float bias2) = 0;
  virtual void do_add_diagonal(float* a, std::int64_t n, std::int64_t count, float value) = 0;
  virtual void do_scale_columns_pow(const float* q, const float* w, float* out, std::int64_t n,
                                    std::int64_t count, float eps, float exponent) = 0;
  virtual void do_reverse_columns(float* a, std::int64_t n, std::int64_t count) = 0;
  virtual void do_argsort_descending(const float* values, std::int64_t n, std::int64_t count,
                                     int* perm, void* workspace) = 0;
  virtual std::size_t do_argsort_workspace_bytes(std::int64_t n, std::int64_t count) = 0;
  virtual void do_permute_columns(Items<const float> a, std::int64_t rows, std::int64_t cols,
                                  const int* perm, Items<float> out) = 0;
  virtual void do_permute_rows(Items<const float> a, std::int64_t rows, std::int64_t cols,
                               const int* perm, Items<float> out) = 0;

 private:
  /// Counts one operation on `count` items; canzona::Error when the operands' counts differ.
  void count_batch(const char* operation, std::initializer_list<std::int64_t> counts);

  OpCounts counts_;
};

/// canzona::Error naming `backend` unless both pitches are at least `width` (copy_2d's
/// precondition; shared by the implementations).
void check_copy_2d(std::string_view backend, std::size_t dst_pitch, std::size_t src_pitch,
                   std::size_t width);

/// The backend named `name` ("cpu", "cuda"); ConfigError when unknown or not built in, or when
/// "cuda" is asked for on a machine without a GPU. `device` selects the GPU for "cuda"; the
/// default (-1) is the calling thread's current device, i.e. the rank's own GPU once
/// NcclCommunicator::create chose it (device 0 in a process that never chose one), so the
/// backend and the communicators agree by construction.
std::unique_ptr<Backend> make_backend(std::string_view name, int device = -1);

}  // namespace canzona::backend
