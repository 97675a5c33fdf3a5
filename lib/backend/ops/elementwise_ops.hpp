// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Every per-element formula of the backends, written once. The cpu backend runs these functors
// in its loops and the cuda backend through one generic launch, so CPU CI executes the exact
// arithmetic of the GPU and a GPU test can demand bitwise equality with the CPU. The Backend
// interface (backend.hpp) documents what each operation computes; the functors fix how: in
// which order, with which roundings (numerics.hpp: one rounding per operation, never fused).
//
// Two shapes of functor, both trivially copyable (the GPU takes them by value):
//  - flat: `void operator()(i)` for i < n;
//  - rows: `row_value(row)`, evaluated once per row, then `void operator()(value, row, col)`
//    for col < cols. Per-item scalars (a norm, a step size) are row values, so the GPU reads
//    them once per row of its 2-D grid instead of dividing the element index by n.
// Scalars derived only from hyper-parameters (1 − β, 1 − lr·wd) are computed once on the host
// and passed in, so both sides start from the same fp32 values.
#pragma once

#include "numerics.hpp"

#include <cstdint>

namespace canzona::backend::ops {

/// Rows functors that need no per-row value return this.
struct NoRowValue {};

// ---- conversion -----------------------------------------------------------------------------

/// dst[i] = src[i] with fp32 ↔ bf16 storage (fp32 → bf16 rounds to nearest even).
template <typename Dst, typename Src>
struct Convert {
  Dst* dst;
  const Src* src;
  CANZONA_HD void operator()(std::int64_t i) const { store(dst, i, load(src, i)); }
};

/// dst[i] = src[i] for 4-byte words: one item of a batched copy of word-aligned arrays.
struct CopyWords {
  std::uint32_t* dst;
  const std::uint32_t* src;
  CANZONA_HD void operator()(std::int64_t i) const { dst[i] = src[i]; }
};

/// dst[i] = src[i] for bytes: one item of a batched copy of unaligned arrays.
struct CopyBytes {
  unsigned char* dst;
  const unsigned char* src;
  CANZONA_HD void operator()(std::int64_t i) const { dst[i] = src[i]; }
};

// ---- optimizer updates ----------------------------------------------------------------------

/// buf ← μ·buf + (1 − μ)·g; out ← nesterov ? (1 − μ)·g + μ·buf : buf.
template <typename Out>
struct MuonMomentum {
  float* buf;
  const float* g;
  Out* out;
  float mu;
  float one_minus_mu;
  bool nesterov;
  CANZONA_HD void operator()(std::int64_t i) const {
    const float gi = g[i];
    const float b = add_rn(mul_rn(mu, buf[i]), mul_rn(one_minus_mu, gi));
    buf[i] = b;
    store(out, i, nesterov ? add_rn(mul_rn(one_minus_mu, gi), mul_rn(mu, b)) : b);
  }
};

/// Row = item of n elements: x_i ← x_i / max(sqrt(sumsq[i]), eps).
template <typename T>
struct Normalize {
  T* x;
  std::int64_t n;
  const float* sumsq;
  float eps;
  CANZONA_HD float row_value(std::int64_t item) const { return max_nan(sqrt_rn(sumsq[item]), eps); }
  CANZONA_HD void operator()(float denom, std::int64_t item, std::int64_t i) const {
    T* xi = x + item * n;
    store(xi, i, div_rn(load(xi, i), denom));
  }
};

/// Row = item of n elements: x_i ← x_i / (eps + sqrt(sumsq[i] / n)).
struct NormalizeRms {
  float* x;
  std::int64_t n;
  const float* sumsq;
  float eps;
  CANZONA_HD float row_value(std::int64_t item) const {
    return add_rn(eps, sqrt_rn(div_rn(sumsq[item], static_cast<float>(n))));
  }
  CANZONA_HD void operator()(float denom, std::int64_t item, std::int64_t i) const {
    float* xi = x + item * n;
    xi[i] = div_rn(xi[i], denom);
  }
};

/// y ← alpha·x + beta·y (x may be y).
template <typename T>
struct Axpby {
  T* y;
  const T* x;
  float alpha;
  float beta;
  CANZONA_HD void operator()(std::int64_t i) const {
    store(y, i, add_rn(mul_rn(alpha, load(x, i)), mul_rn(beta, load(y, i))));
  }
};

/// m ← β·m + (1 − β)·g.
struct Ema {
  float* m;
  const float* g;
  float beta;
  float one_minus_beta;
  CANZONA_HD void operator()(std::int64_t i) const {
    m[i] = add_rn(mul_rn(beta, m[i]), mul_rn(one_minus_beta, g[i]));
  }
};

/// v ← β·v + (1 − β)·(g·g).
struct EmaSquare {
  float* v;
  const float* g;
  float beta;
  float one_minus_beta;
  CANZONA_HD void operator()(std::int64_t i) const {
    const float gi = g[i];
    v[i] = add_rn(mul_rn(beta, v[i]), mul_rn(one_minus_beta, mul_rn(gi, gi)));
  }
};

/// The Adam direction (m / bias1) / (sqrt(v / bias2) + eps).
CANZONA_HD inline float adam_direction(float m, float v, float bias1, float bias2, float eps) {
  return div_rn(div_rn(m, bias1), add_rn(sqrt_rn(div_rn(v, bias2)), eps));
}

/// out ← (m / bias1) / (sqrt(v / bias2) + eps) (out may alias m).
struct AdamDirection {
  const float* m;
  const float* v;
  float* out;
  float bias1;
  float bias2;
  float eps;
  CANZONA_HD void operator()(std::int64_t i) const {
    out[i] = adam_direction(m[i], v[i], bias1, bias2, eps);
  }
};

/// out ← x / (sqrt(v) + eps) (out may alias x).
struct DivideSqrtEps {
  const float* x;
  const float* v;
  float* out;
  float eps;
  CANZONA_HD void operator()(std::int64_t i) const {
    out[i] = div_rn(x[i], add_rn(sqrt_rn(v[i]), eps));
  }
};

/// Row = item: with step = lr·s_i, s_i = scale·(ratio ? sqrt(num_i) / max(sqrt(den_i), 1e-30)
/// : 1), p ← p·decay − step·u (decay_first) or p ← (p − step·u)·decay, decay = 1 − lr·wd.
template <typename U>
struct ApplyUpdate {
  float* p;
  const U* u;
  std::int64_t n;
  float lr;
  float scale;
  float decay;
  bool decay_first;
  const float* ratio_num;
  const float* ratio_den;
  CANZONA_HD float row_value(std::int64_t item) const {
    float s = scale;
    if (ratio_num != nullptr) {
      s = mul_rn(scale,
                 div_rn(sqrt_rn(ratio_num[item]), max_nan(sqrt_rn(ratio_den[item]), 1e-30f)));
    }
    return mul_rn(lr, s);
  }
  CANZONA_HD void operator()(float step, std::int64_t item, std::int64_t i) const {
    float* pi = p + item * n;
    const float delta = mul_rn(step, load(u + item * n, i));
    pi[i] = decay_first ? sub_rn(mul_rn(pi[i], decay), delta) : mul_rn(sub_rn(pi[i], delta), decay);
  }
};

/// One fused AdamW step: m ← β1·m + (1 − β1)·g; v ← β2·v + (1 − β2)·(g·g);
/// p ← p·decay − lr·adam_direction(m, v).
struct AdamwStep {
  float* p;
  const float* g;
  float* m;
  float* v;
  float lr;
  float beta1;
  float one_minus_beta1;
  float beta2;
  float one_minus_beta2;
  float eps;
  float decay;
  float bias1;
  float bias2;
  CANZONA_HD void operator()(std::int64_t i) const {
    const float gi = g[i];
    const float mi = add_rn(mul_rn(beta1, m[i]), mul_rn(one_minus_beta1, gi));
    const float vi = add_rn(mul_rn(beta2, v[i]), mul_rn(one_minus_beta2, mul_rn(gi, gi)));
    m[i] = mi;
    v[i] = vi;
    p[i] = sub_rn(mul_rn(p[i], decay), mul_rn(lr, adam_direction(mi, vi, bias1, bias2, eps)));
  }
};

// ---- reductions: the per-element terms (the summation order is each backend's own) -----------

/// x[i]² in fp32 (a term of sum_squares).
template <typename T>
struct Square {
  const T* x;
  CANZONA_HD float operator()(std::int64_t i) const {
    const float v = load(x, i);
    return mul_rn(v, v);
  }
};

/// 1 for a NaN/Inf element, else 0 (a term of count_nonfinite).
struct NonfiniteFlag {
  const float* x;
  CANZONA_HD int operator()(std::int64_t i) const { return is_nonfinite(x[i]) ? 1 : 0; }
};

/// Device-side counting of rare events: adds 1 to *counter for every flagged element (an atomic
/// increment on the device, exact because it adds integers). One launch counts a whole batch
/// of items, where a reduction would take one per item; the flags are almost always 0.
template <typename Flag>
struct CountFlags {
  Flag flag;
  int* counter;
  CANZONA_HD void operator()(std::int64_t i) const {
    if (flag(i) != 0) {
#if defined(__CUDA_ARCH__)
      atomicAdd(counter, 1);
#else
      ++*counter;
#endif
    }
  }
};

/// 1 for a nonzero solver info (a failed eigensolve or factorisation).
struct NonzeroFlag {
  const int* x;
  CANZONA_HD int operator()(std::int64_t i) const { return x[i] != 0 ? 1 : 0; }
};

/// One term of column_dots' sums: sum + x·y, the product and the sum each rounded (never an
/// FMA). Both column-dot functors below run it, so they give the same bits.
CANZONA_HD inline float dot_step(float sum, float x, float y) { return add_rn(sum, mul_rn(x, y)); }

/// k = i·n + j < count·n: out[k] = Σ_r a_i[r, j]·b_i[r, j] for `count` n×n row-major matrices
/// back to back (diag(a_iᵀ·b_i), one column per index), summed from +0 over r = 0, 1, … in
/// order with dot_step. The cuda backend's order: one thread per column, coalesced across
/// neighbouring columns.
struct ColumnDots {
  const float* a;
  const float* b;
  std::int64_t n;
  float* out;
  CANZONA_HD void operator()(std::int64_t k) const {
    const std::int64_t item = k / n;
    const std::int64_t at = item * n * n + (k - item * n);  // a_i[0, j]
    float sum = 0.0f;
    for (std::int64_t r = 0; r < n; ++r) sum = dot_step(sum, a[at + r * n], b[at + r * n]);
    out[k] = sum;
  }
};

/// The same sums accumulated row by row: row = i·n + r of count·n rows, col j < n adds
/// a_i[r, j]·b_i[r, j] to out[i·n + j], which starts at +0 (zero-filled by the caller), rows in
/// order. Per column it runs ColumnDots' dot_steps in ColumnDots' order, so it gives the same
/// bits; the cpu backend's order, which streams both matrices row by row.
struct ColumnDotsByRows {
  const float* a;
  const float* b;
  std::int64_t n;
  float* out;
  CANZONA_HD float* row_value(std::int64_t row) const { return out + row / n * n; }
  CANZONA_HD void operator()(float* sums, std::int64_t row, std::int64_t j) const {
    sums[j] = dot_step(sums[j], a[row * n + j], b[row * n + j]);
  }
};

// ---- small-matrix helpers of the preconditioners (n×n items back to back) --------------------

/// Row = item, col = d < n: a_i[d, d] ← a_i[d, d] + value.
struct AddDiagonal {
  float* a;
  std::int64_t n;
  float value;
  CANZONA_HD NoRowValue row_value(std::int64_t /*item*/) const { return {}; }
  CANZONA_HD void operator()(NoRowValue, std::int64_t item, std::int64_t d) const {
    float* aii = a + item * n * n + d * n + d;
    *aii = add_rn(*aii, value);
  }
};

/// Row r of all count·n rows, col j < n: out[r, j] = q[r, j] · inverse_root_factor(w_i[j])
/// with i = r / n: eigenvector columns scaled for an inverse 2^k-th root (out may alias q).
struct ScaleColumnsInverseRoot {
  const float* q;
  const float* w;
  float* out;
  std::int64_t n;
  float eps;
  int k;
  CANZONA_HD const float* row_value(std::int64_t row) const { return w + row / n * n; }
  CANZONA_HD void operator()(const float* wi, std::int64_t row, std::int64_t j) const {
    const std::int64_t at = row * n + j;
    out[at] = mul_rn(q[at], inverse_root_factor(wi[j], eps, k));
  }
};

/// Row r of all count·n rows, col j < n/2: swaps a[r, j] and a[r, n − 1 − j].
struct ReverseColumns {
  float* a;
  std::int64_t n;
  CANZONA_HD NoRowValue row_value(std::int64_t /*row*/) const { return {}; }
  CANZONA_HD void operator()(NoRowValue, std::int64_t row, std::int64_t j) const {
    float* r = a + row * n;
    const float left = r[j];
    r[j] = r[n - 1 - j];
    r[n - 1 - j] = left;
  }
};

/// out[r, j] = a[r, perm[j]] for a row-major matrix of `cols` columns.
struct PermuteColumns {
  const float* a;
  std::int64_t cols;
  const int* perm;
  float* out;
  CANZONA_HD NoRowValue row_value(std::int64_t /*row*/) const { return {}; }
  CANZONA_HD void operator()(NoRowValue, std::int64_t r, std::int64_t j) const {
    out[r * cols + j] = a[r * cols + perm[j]];
  }
};

/// out[r, j] = a[perm[r], j] for a row-major matrix of `cols` columns.
struct PermuteRows {
  const float* a;
  std::int64_t cols;
  const int* perm;
  float* out;
  CANZONA_HD const float* row_value(std::int64_t r) const {
    return a + static_cast<std::int64_t>(perm[r]) * cols;
  }
  CANZONA_HD void operator()(const float* source, std::int64_t r, std::int64_t j) const {
    out[r * cols + j] = source[j];
  }
};

/// Row r, col j of a row-major Q with n columns: q[r, j] ← −q[r, j] where diag[j] < 0. With
/// diag = diag(R) of a Householder QR this makes the factorisation the unique one with
/// diag(R) ≥ 0 (Q·S and S·R, S = diag(±1), have the same product). A NaN diagonal flips nothing.
struct FlipColumnsBySign {
  float* q;
  std::int64_t n;
  const float* diag;
  CANZONA_HD NoRowValue row_value(std::int64_t /*row*/) const { return {}; }
  CANZONA_HD void operator()(NoRowValue, std::int64_t r, std::int64_t j) const {
    if (diag[j] < 0.0f) q[r * n + j] = -q[r * n + j];
  }
};

/// Row r = item·n + i of count·n rows, col j < n: out[item][i][j] = in[item][j][i], each n×n
/// square of a contiguous batch transposed out of place (exact: a copy). The batched eigensolver
/// writes eigenvectors as rows; the Backend interface promises them as columns.
struct TransposeSquares {
  const float* in;
  float* out;
  std::int64_t n;
  CANZONA_HD const float* row_value(std::int64_t row) const {
    return in + (row / n) * n * n + row % n;  // element (0, i) of the item's input
  }
  CANZONA_HD void operator()(const float* column, std::int64_t row, std::int64_t j) const {
    out[row * n + j] = column[j * n];
  }
};

/// keys[i] = descending_sort_key(values[i]), index[i] = i mod n: the input of
/// argsort_descending's ascending stable sort of each segment of n values (ties and NaNs keep
/// index order, NaNs last); index counts from 0 in every segment.
struct DescendingSortKeys {
  const float* values;
  std::uint32_t* keys;
  int* index;
  std::int64_t n;
  CANZONA_HD void operator()(std::int64_t i) const {
    keys[i] = descending_sort_key(values[i]);
    index[i] = static_cast<int>(i % n);
  }
};

/// The keys of the same sorts done as ONE sort of all count·n values (the cuda backend's radix
/// sort): keys[i] = segment·2^32 + descending_sort_key(values[i]) with segment = i / n, and
/// index[i] = i mod n. An ascending stable sort of these keys orders by segment first, so each
/// segment ends where it began, sorted by DescendingSortKeys' key with ties in index order:
/// the permutations of the per-segment stable sorts.
struct SegmentedDescendingSortKeys {
  const float* values;
  std::uint64_t* keys;
  int* index;
  std::int64_t n;
  CANZONA_HD void operator()(std::int64_t i) const {
    const std::int64_t segment = i / n;
    keys[i] = (static_cast<std::uint64_t>(segment) << 32U) | descending_sort_key(values[i]);
    index[i] = static_cast<int>(i - segment * n);
  }
};

}  // namespace canzona::backend::ops
