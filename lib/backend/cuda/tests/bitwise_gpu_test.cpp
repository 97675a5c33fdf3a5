// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The cuda backend against the cpu backend, BIT FOR BIT, for every element-wise operation: both
// run the shared functors of lib/backend/ops with one rounding per operation, so any difference
// is a defect (a contracted FMA, an approximate division, a different bf16 or NaN rule). Inputs
// include the values those rules exist for: bf16 ties, subnormals, ±0, ±Inf and NaN. Two NaNs
// count as equal whatever their payloads (IEEE leaves the payload of a NaN produced by
// arithmetic open, and x86 and CUDA choose differently); every other value must match exactly.
// argsort and count_nonfinite are compared exactly too (integers), and so is column_dots (both
// backends sum each column in the same order).
#include "backend_test_util.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/core/error.hpp>
#include "numerics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace canzona::backend::test {
namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

/// Same bits, or both NaN.
bool same(float a, float b) {
  return ops::bits_of(a) == ops::bits_of(b) || (std::isnan(a) && std::isnan(b));
}
bool same(std::uint16_t a, std::uint16_t b) { return a == b; }
bool same(int a, int b) { return a == b; }

/// A cpu and a cuda backend side by side; every array exists on both.
class BitwiseGpu : public CudaBackendTest {
 protected:
  void SetUp() override {
    CudaBackendTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    cpu_ = make_backend("cpu");
  }

  template <typename T>
  struct Twin {
    Buffer cpu, gpu;
    std::size_t n = 0;
    T* c() const { return cpu.as<T>(); }
    T* g() const { return gpu.as<T>(); }
  };

  template <typename T>
  Twin<T> twin(const std::vector<T>& host) {
    Twin<T> t;
    t.n = host.size();
    t.cpu = cpu_->allocate(host.size() * sizeof(T));
    cpu_->upload(t.cpu.data(), host.data(), host.size() * sizeof(T));
    t.gpu = put(host);
    be().synchronize();
    return t;
  }
  template <typename T>
  Twin<T> zeros(std::size_t n) {
    return twin(std::vector<T>(n));
  }

  /// Downloads both sides and expects them bitwise equal (NaN == NaN); names the first misses.
  template <typename T>
  void expect_same(const Twin<T>& t, const std::string& what) {
    std::vector<T> want(t.n);
    cpu_->download(want.data(), t.cpu.data(), t.n * sizeof(T));
    const std::vector<T> got = get<T>(t.gpu, t.n);
    std::size_t misses = 0;
    for (std::size_t i = 0; i < t.n; ++i) {
      if (!same(got[i], want[i])) {
        if (misses++ < 5) {
          ADD_FAILURE() << what << "[" << i << "]: gpu " << got[i] << ", cpu " << want[i];
        }
      }
    }
    EXPECT_EQ(misses, 0U) << what << ": " << misses << " of " << t.n << " elements differ";
  }

  /// Random values with every special case mixed in: ordinary numbers over many magnitudes,
  /// values exactly halfway between two bf16 numbers, subnormals, ±0, ±Inf and NaN.
  std::vector<float> hard(std::size_t n, bool specials = true) {
    std::vector<float> v = uniform(n, -4.0f, 4.0f);
    for (std::size_t i = 0; i < n; ++i) {
      switch (pick(0, specials ? 9 : 4)) {
        case 0:
          v[i] = std::ldexp(v[i], static_cast<int>(pick(-60, 60)));
          break;
        case 1:  // a bf16 tie: low 16 bits exactly 0x8000
          v[i] = ops::float_of((ops::bits_of(v[i]) & 0xffff0000U) | 0x8000U);
          break;
        case 5:
          v[i] = std::numeric_limits<float>::denorm_min() * static_cast<float>(pick(1, 1000));
          break;
        case 6:
          v[i] = pick(0, 1) != 0 ? 0.0f : -0.0f;
          break;
        case 7:
          v[i] = pick(0, 1) != 0 ? kInf : -kInf;
          break;
        case 8:
          v[i] = kNan;
          break;
        default:
          break;
      }
    }
    return v;
  }
  std::vector<float> positive(std::size_t n) {
    std::vector<float> v = hard(n, false);
    for (float& x : v) x = std::fabs(x);
    return v;
  }

  std::unique_ptr<Backend> cpu_;
};

TEST_F(BitwiseGpu, ConvertBothWays) {
  SCOPED_TRACE(trace());
  const std::size_t n = static_cast<std::size_t>(pick(1, 70000));
  std::vector<float> x = hard(n);
  x[0] = ops::float_of(0x7f800001U);      // a NaN whose payload is only in the low bits
  x[n - 1] = ops::float_of(0x7f7fffffU);  // rounds to +Inf
  const auto src = twin(x);
  auto narrow = zeros<std::uint16_t>(n);
  auto wide = zeros<float>(n);
  for (Backend* b : {cpu_.get(), &be()}) {
    const bool g = b != cpu_.get();
    b->convert(g ? narrow.g() : narrow.c(), ElementType::kBFloat16, g ? src.g() : src.c(),
               ElementType::kFloat32, static_cast<std::int64_t>(n));
    b->convert(g ? wide.g() : wide.c(), ElementType::kFloat32, g ? narrow.g() : narrow.c(),
               ElementType::kBFloat16, static_cast<std::int64_t>(n));
  }
  expect_same(narrow, "fp32 -> bf16");
  expect_same(wide, "bf16 -> fp32");
  EXPECT_EQ(get<std::uint16_t>(narrow.gpu, 1)[0], ops::kBf16Nan) << "the one bf16 NaN";
}

TEST_F(BitwiseGpu, MuonMomentumAxpbyEmaAndAdam) {
  SCOPED_TRACE(trace());
  const auto n = pick(1, 50000);
  const auto un = static_cast<std::size_t>(n);
  const float mu = 0.95f;
  for (bool nesterov : {false, true}) {
    auto buf = twin(hard(un));
    const auto g = twin(hard(un));
    auto out32 = zeros<float>(un);
    auto out16 = zeros<std::uint16_t>(un);
    auto y32 = twin(hard(un));
    auto y16 = twin(to_bf16(hard(un)));
    const auto x16 = twin(to_bf16(hard(un)));
    auto m = twin(hard(un));
    auto v = twin(positive(un));
    auto dir = zeros<float>(un);
    auto q = zeros<float>(un);
    for (Backend* b : {cpu_.get(), &be()}) {
      const bool gp = b != cpu_.get();
      auto at = [gp](const auto& t) { return gp ? t.g() : t.c(); };
      b->muon_momentum(at(buf), at(g), at(out32), ElementType::kFloat32, n, mu, nesterov);
      b->muon_momentum(at(buf), at(g), at(out16), ElementType::kBFloat16, n, 0.9f, nesterov);
      b->axpby(at(y32), at(g), ElementType::kFloat32, n, 0.3f, -1.7f);
      b->axpby(at(y32), at(y32), ElementType::kFloat32, n, 0.5f, 0.25f);  // aliased
      b->axpby(at(y16), at(x16), ElementType::kBFloat16, n, -0.7f, 1.1f);
      b->ema(at(m), at(g), n, 0.9f);
      b->ema_square(at(v), at(g), n, 0.999f);
      b->adam_direction(at(m), at(v), at(dir), n, 0.1f, 0.001f, 1e-8f);
      b->divide_sqrt_eps(at(m), at(v), at(q), n, 1e-8f);
      b->divide_sqrt_eps(at(q), at(v), at(q), n, 1e-8f);  // aliased
    }
    const std::string tag = nesterov ? " (nesterov)" : "";
    expect_same(buf, "momentum buffer" + tag);
    expect_same(out32, "momentum fp32 out" + tag);
    expect_same(out16, "momentum bf16 out" + tag);
    expect_same(y32, "axpby fp32");
    expect_same(y16, "axpby bf16");
    expect_same(m, "ema");
    expect_same(v, "ema_square");
    expect_same(dir, "adam_direction");
    expect_same(q, "divide_sqrt_eps");
  }
}

TEST_F(BitwiseGpu, NormalizeAndApplyUpdateWithPerItemScalars) {
  SCOPED_TRACE(trace());
  const auto n = pick(1, 20000);
  const std::int64_t count = 4;
  const auto total = static_cast<std::size_t>(n * count);
  // Per-item norms include 0, a NaN and a denormal: max(sqrt(·), eps) must keep the NaN.
  const auto sumsq = twin(std::vector<float>{2.5f, 0.0f, kNan, 1e-40f});
  const auto den = twin(std::vector<float>{4.0f, 0.0f, 9.0f, kNan});
  auto x32 = twin(hard(total));
  auto x16 = twin(to_bf16(hard(total)));
  auto rms = twin(hard(static_cast<std::size_t>(n)));
  const auto u32 = twin(hard(total));
  const auto u16 = twin(to_bf16(hard(total)));
  auto p_before = twin(hard(total));
  auto p_after = twin(hard(total));
  auto p_ratio = twin(hard(total));
  for (Backend* b : {cpu_.get(), &be()}) {
    const bool gp = b != cpu_.get();
    auto at = [gp](const auto& t) { return gp ? t.g() : t.c(); };
    b->normalize(at(x32), ElementType::kFloat32, n, count, at(sumsq), 1e-7f);
    b->normalize(at(x16), ElementType::kBFloat16, n, count, at(sumsq), 1e-7f);
    b->normalize_rms(at(rms), n, at(sumsq), 1e-30f);
    b->apply_update(at(p_before), at(u32), ElementType::kFloat32, n, count, 0.02f, 0.1f, 1.5f,
                    DecayOrder::kBeforeUpdate, nullptr, nullptr);
    b->apply_update(at(p_after), at(u16), ElementType::kBFloat16, n, count, 0.02f, 0.1f, 0.7f,
                    DecayOrder::kAfterUpdate, nullptr, nullptr);
    b->apply_update(at(p_ratio), at(u32), ElementType::kFloat32, n, count, 3e-4f, 0.0f, 1.0f,
                    DecayOrder::kBeforeUpdate, at(sumsq), at(den));
  }
  expect_same(x32, "normalize fp32");
  expect_same(x16, "normalize bf16");
  expect_same(rms, "normalize_rms");
  expect_same(p_before, "apply_update before");
  expect_same(p_after, "apply_update after, bf16 u");
  expect_same(p_ratio, "apply_update grafting ratio");
}

TEST_F(BitwiseGpu, AdamwStep) {
  SCOPED_TRACE(trace());
  const auto n = pick(1, 50000);
  const auto un = static_cast<std::size_t>(n);
  auto p = twin(hard(un));
  const auto g = twin(hard(un));
  auto m = twin(hard(un));
  auto v = twin(positive(un));
  for (int step = 1; step <= 3; ++step) {
    const float bias1 = 1.0f - std::pow(0.9f, static_cast<float>(step));
    const float bias2 = 1.0f - std::pow(0.95f, static_cast<float>(step));
    for (Backend* b : {cpu_.get(), &be()}) {
      const bool gp = b != cpu_.get();
      auto at = [gp](const auto& t) { return gp ? t.g() : t.c(); };
      b->adamw_step(at(p), at(g), at(m), at(v), n, 1e-3f, 0.9f, 0.95f, 1e-8f, 0.1f, bias1, bias2);
    }
  }
  expect_same(p, "adamw p");
  expect_same(m, "adamw m");
  expect_same(v, "adamw v");
}

TEST_F(BitwiseGpu, SmallMatrixHelpers) {
  SCOPED_TRACE(trace());
  const auto d = pick(1, 70);
  const std::int64_t count = pick(1, 4);
  const auto items = static_cast<std::size_t>(d * d * count);
  auto a = twin(hard(items, false));
  std::vector<float> w_host = uniform(static_cast<std::size_t>(d * count), -0.5f, 20.0f);
  w_host[0] = kNan;  // a failed eigenvalue must give a NaN column, not a finite one
  const auto w = twin(w_host);
  auto scaled_half = zeros<float>(items);
  auto scaled_quarter = zeros<float>(items);
  auto reversed = twin(hard(items, false));
  std::vector<int> perm_host(static_cast<std::size_t>(d));
  for (std::int64_t i = 0; i < d; ++i)
    perm_host[static_cast<std::size_t>(i)] = static_cast<int>((i * 7 + 3) % d);
  const auto perm = twin(perm_host);
  const auto src = twin(hard(static_cast<std::size_t>(d * d), false));
  auto by_rows = zeros<float>(static_cast<std::size_t>(d * d));
  auto by_cols = zeros<float>(static_cast<std::size_t>(d * d));
  for (Backend* b : {cpu_.get(), &be()}) {
    const bool gp = b != cpu_.get();
    auto at = [gp](const auto& t) { return gp ? t.g() : t.c(); };
    b->add_diagonal(at(a), d, count, 1e-8f);
    b->scale_columns_pow(at(a), at(w), at(scaled_half), d, count, 1e-6f, -0.5f);
    b->scale_columns_pow(at(a), at(w), at(scaled_quarter), d, count, 1e-12f, -0.25f);
    b->reverse_columns(at(reversed), d, count);
    b->permute_rows(at(src), d, d, at(perm), at(by_rows));
    b->permute_columns(at(src), d, d, at(perm), at(by_cols));
  }
  expect_same(a, "add_diagonal");
  expect_same(scaled_half, "scale_columns_pow -1/2");
  expect_same(scaled_quarter, "scale_columns_pow -1/4");
  expect_same(reversed, "reverse_columns");
  expect_same(by_rows, "permute_rows");
  expect_same(by_cols, "permute_columns");
}

TEST_F(BitwiseGpu, ArgsortAndCountNonfiniteAreExact) {
  SCOPED_TRACE(trace());
  for (const std::int64_t n : {std::int64_t{1}, pick(2, 300), pick(1000, 100000)}) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<float> v = hard(un);
    // Many ties, ±0 and NaNs of both signs: the rules say ties by index, −0 == +0, NaNs last.
    for (std::size_t i = 0; i < un; i += 3) v[i] = static_cast<float>(pick(-2, 2));
    for (std::size_t i = 1; i < un; i += 11) v[i] = -kNan;
    const auto values = twin(v);
    auto perm = zeros<int>(un);
    auto counter = twin(std::vector<int>{7});
    Buffer ws_cpu = cpu_->allocate(cpu_->argsort_workspace_bytes(n, 1));
    Buffer ws_gpu = be().allocate(be().argsort_workspace_bytes(n, 1));
    cpu_->argsort_descending(values.c(), n, 1, perm.c(), ws_cpu.data());
    be().argsort_descending(values.g(), n, 1, perm.g(), ws_gpu.data());
    cpu_->count_nonfinite(values.c(), n, counter.c());
    be().count_nonfinite(values.g(), n, counter.g());
    expect_same(perm, "argsort_descending n=" + std::to_string(n));
    expect_same(counter, "count_nonfinite n=" + std::to_string(n));
  }
}

/// The batched helpers of SOAP's eigenbasis refresh, bit for bit: column_dots (both backends sum
/// each column in row order with one rounding per operation), argsort over segments full of
/// ties, ±0 and NaNs, and the permutations over listed items, more than one launch carries, each
/// with its own permutation.
TEST_F(BitwiseGpu, BatchedRefreshHelpers) {
  SCOPED_TRACE(trace());
  const std::int64_t d = pick(1, 90);
  const std::int64_t count = pick(2, 40);
  const auto dd = static_cast<std::size_t>(d * d);
  const auto dc = static_cast<std::size_t>(d * count);
  std::vector<float> a_host = hard(dd * static_cast<std::size_t>(count), false);
  a_host[static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(a_host.size()) - 1))] = kNan;
  const auto a = twin(a_host);
  const auto b = twin(hard(dd * static_cast<std::size_t>(count), false));
  auto dots = zeros<float>(dc);
  std::vector<float> v = hard(dc);
  for (std::size_t i = 0; i < dc; i += 3) v[i] = static_cast<float>(pick(-2, 2));
  for (std::size_t i = 1; i < dc; i += 11) v[i] = -kNan;
  const auto values = twin(v);
  auto perm = zeros<int>(dc);
  Buffer ws_cpu = cpu_->allocate(cpu_->argsort_workspace_bytes(d, count));
  Buffer ws_gpu = be().allocate(be().argsort_workspace_bytes(d, count));

  const std::int64_t k = pick(33, 70);
  const std::int64_t rows = pick(1, 40);
  const std::int64_t cols = pick(1, 40);
  const auto uk = static_cast<std::size_t>(k);
  const auto size = static_cast<std::size_t>(rows * cols);
  std::vector<Twin<float>> inputs;
  for (std::size_t i = 0; i < uk; ++i) inputs.push_back(twin(hard(size)));
  std::vector<int> row_perms, col_perms;
  for (std::size_t i = 0; i < uk; ++i) {
    std::vector<int> r(static_cast<std::size_t>(rows)), c(static_cast<std::size_t>(cols));
    std::iota(r.begin(), r.end(), 0);
    std::iota(c.begin(), c.end(), 0);
    std::shuffle(r.begin(), r.end(), rng_);
    std::shuffle(c.begin(), c.end(), rng_);
    row_perms.insert(row_perms.end(), r.begin(), r.end());
    col_perms.insert(col_perms.end(), c.begin(), c.end());
  }
  const auto pr = twin(row_perms);
  const auto pc = twin(col_perms);
  auto by_rows = zeros<float>(size * uk);
  auto by_cols = zeros<float>(size * uk);

  for (Backend* bk : {cpu_.get(), &be()}) {
    const bool gp = bk != cpu_.get();
    auto at = [gp](const auto& t) { return gp ? t.g() : t.c(); };
    std::vector<const float*> list(uk);
    for (std::size_t i = 0; i < uk; ++i) list[i] = at(inputs[i]);
    const Items<const float> in(list.data(), list.size());
    bk->column_dots(at(a), at(b), d, count, at(dots));
    bk->argsort_descending(at(values), d, count, at(perm), gp ? ws_gpu.data() : ws_cpu.data());
    bk->permute_rows(in, rows, cols, at(pr), back_to_back(at(by_rows), k, rows * cols));
    bk->permute_columns(in, rows, cols, at(pc), back_to_back(at(by_cols), k, rows * cols));
  }
  const std::string shape = " d=" + std::to_string(d) + " count=" + std::to_string(count);
  expect_same(dots, "column_dots" + shape);
  expect_same(perm, "argsort_descending" + shape);
  expect_same(by_rows, "permute_rows over " + std::to_string(k) + " listed items");
  expect_same(by_cols, "permute_columns over " + std::to_string(k) + " listed items");
}

/// Batched operations over listed arrays (each item its own allocation), more items than one
/// launch carries, so the split into launches and the per-item scalars are exercised too.
TEST_F(BitwiseGpu, BatchedOperationsOverListedItems) {
  SCOPED_TRACE(trace());
  const std::int64_t k = pick(33, 80);
  const std::int64_t n = pick(1, 3000);
  const auto uk = static_cast<std::size_t>(k);
  const auto un = static_cast<std::size_t>(n);
  std::vector<Twin<float>> p, g, m, v, dir;
  std::vector<Twin<std::uint16_t>> out16;
  for (std::size_t i = 0; i < uk; ++i) {
    p.push_back(twin(hard(un)));
    g.push_back(twin(hard(un)));
    m.push_back(twin(hard(un)));
    v.push_back(twin(positive(un)));
    dir.push_back(zeros<float>(un));
    out16.push_back(zeros<std::uint16_t>(un));
  }
  const auto num = twin(positive(uk));
  const auto den = twin(positive(uk));
  auto packed = zeros<float>(uk * un);
  auto packed_bytes = zeros<std::uint16_t>(uk * un);
  auto counter = twin(std::vector<int>{3});
  for (Backend* b : {cpu_.get(), &be()}) {
    const bool gp = b != cpu_.get();
    auto list = [gp, uk](auto& twins) {
      using T = std::remove_reference_t<decltype(*twins.front().c())>;
      std::vector<T*> l(uk);
      for (std::size_t i = 0; i < uk; ++i) l[i] = gp ? twins[i].g() : twins[i].c();
      return l;
    };
    auto clist = [&list](auto& twins) {
      auto l = list(twins);
      using T = std::remove_pointer_t<typename decltype(l)::value_type>;
      return std::vector<const T*>(l.begin(), l.end());
    };
    auto at = [gp](const auto& t) { return gp ? t.g() : t.c(); };
    const auto lp = list(p), lm = list(m), lv = list(v), ldir = list(dir);
    const auto lg = clist(g), lmc = clist(m), lvc = clist(v), ldirc = clist(dir);
    const auto l16 = list(out16);
    const std::vector<void*> l16v(l16.begin(), l16.end());
    const std::vector<const void*> ldirv(ldirc.begin(), ldirc.end());
    const std::vector<const void*> l16c(l16.begin(), l16.end());
    b->muon_momentum(std::span<float* const>(lm), std::span<const float* const>(lg),
                     std::span<void* const>(l16v), ElementType::kBFloat16, n, 0.9f, true);
    b->ema_square(std::span<float* const>(lv), std::span<const float* const>(lg), n, 0.99f);
    b->adam_direction(std::span<const float* const>(lmc), std::span<const float* const>(lvc),
                      std::span<float* const>(ldir), n, 0.3f, 0.01f, 1e-8f);
    b->normalize_rms(std::span<float* const>(ldir), n, at(num), 1e-30f);
    b->apply_update(std::span<float* const>(lp), std::span<const void* const>(ldirv),
                    ElementType::kFloat32, n, 2e-3f, 0.1f, 1.0f, DecayOrder::kBeforeUpdate, at(num),
                    at(den));
    b->adamw_step(std::span<float* const>(lp), std::span<const float* const>(lg),
                  std::span<float* const>(lm), std::span<float* const>(lv), n, 1e-3f, 0.9f, 0.95f,
                  1e-8f, 0.1f, 0.19f, 0.0975f);
    b->copy(Items<void>(at(packed), k, un * sizeof(float)), std::span<const void* const>(ldirv),
            un * sizeof(float));
    // An odd byte count takes the byte-wise path (the last byte of each item stays zero).
    b->copy(Items<void>(at(packed_bytes), k, un * sizeof(std::uint16_t)),
            std::span<const void* const>(l16c), un * sizeof(std::uint16_t) - 1);
    b->count_nonfinite(std::span<const float* const>(lg), n, at(counter));
  }
  for (std::size_t i = 0; i < uk; ++i) {
    const std::string item = " item " + std::to_string(i);
    expect_same(p[i], "p" + item);
    expect_same(m[i], "m" + item);
    expect_same(v[i], "v" + item);
    expect_same(dir[i], "direction" + item);
    expect_same(out16[i], "bf16 momentum out" + item);
  }
  expect_same(packed, "batched copy, words");
  expect_same(packed_bytes, "batched copy, bytes");
  expect_same(counter, "count_nonfinite over items");
}

TEST_F(BitwiseGpu, OperationCountsAgree) {
  // The interface counts, so the same calls give the same counts on both backends.
  const auto x = twin(hard(1000));
  auto y = zeros<float>(1000);
  const OpCounts cpu_start = cpu_->op_counts();
  const OpCounts gpu_start = be().op_counts();
  for (Backend* b : {cpu_.get(), &be()}) {
    const bool gp = b != cpu_.get();
    b->axpby(gp ? y.g() : y.c(), gp ? x.g() : x.c(), ElementType::kFloat32, 1000, 1.0f, 1.0f);
    b->synchronize();
  }
  const OpCounts cpu = cpu_->op_counts() - cpu_start;
  const OpCounts gpu = be().op_counts() - gpu_start;
  EXPECT_EQ(cpu.operations, gpu.operations);
  EXPECT_EQ(cpu.synchronizations, gpu.synchronizations);
}

}  // namespace
}  // namespace canzona::backend::test
