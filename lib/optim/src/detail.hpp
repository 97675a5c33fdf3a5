// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Internals shared by the optimizer implementations and the cost model: state storage, the
// workspace layouts (one function per optimizer, used both to size and to carve the arena, so
// the cost model's byte counts cannot drift from the code), and batch gather/scatter.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/options.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace canzona::optim::detail {

using backend::ElementType;

/// Offsets inside the workspace are aligned like allocate() so every sub-array starts on a
/// 256-byte boundary (coalesced / vectorised loads on the GPU).
inline constexpr std::size_t kAlignment = 256;

/// Hands out aligned slices of a workspace. With a null base it only measures: the same
/// carving code sizes the arena (workspace_bytes, the cost model) and splits it (run_group).
class Carver {
 public:
  explicit Carver(void* base = nullptr) : base_(static_cast<char*>(base)) {}
  void* take(std::size_t bytes) {
    if (bytes == 0) return nullptr;
    offset_ = (offset_ + kAlignment - 1) / kAlignment * kAlignment;
    void* out = base_ == nullptr ? nullptr : base_ + offset_;
    offset_ += bytes;
    return out;
  }
  float* floats(std::int64_t count) {
    return static_cast<float*>(take(static_cast<std::size_t>(count) * sizeof(float)));
  }
  std::size_t size() const noexcept { return offset_; }

 private:
  char* base_;
  std::size_t offset_ = 0;
};

/// Backend solver workspace sizes the layouts need (zero in the backend-free cost model).
struct SolverBytes {
  std::size_t eigh = 0;            ///< max over preconditioned sides of eigh_workspace_bytes
  std::size_t orthonormalize = 0;  ///< max over sides of orthonormalize_workspace_bytes(d, d)
  std::size_t argsort = 0;         ///< max over sides of argsort_workspace_bytes(d, batch)
};

inline ElementType ns_type(const MuonOptions& o) {
  return o.ns_precision == NsPrecision::kBFloat16 ? ElementType::kBFloat16 : ElementType::kFloat32;
}

struct MuonWorkspace {
  void* x0 = nullptr;  ///< NS iterate ping (batch × rows·cols, ns type)
  void* x1 = nullptr;  ///< NS iterate pong
  void* s = nullptr;   ///< Gram matrix, batch × d×d (d = min side), ns type
  void* bm = nullptr;  ///< b·S + c·S·S, batch × d×d, ns type
  float* sumsq = nullptr;
};
MuonWorkspace carve_muon(Carver& carver, const MuonOptions& o, Shape shape, std::int64_t batch);

struct ShampooWorkspace {
  float* g = nullptr;       ///< gathered gradients (batch > 1)
  float* l = nullptr;       ///< gathered L (batch > 1)
  float* r = nullptr;       ///< gathered R (batch > 1)
  float* pl = nullptr;      ///< gathered L^{-1/4} (batch > 1)
  float* pr = nullptr;      ///< gathered R^{-1/4} (batch > 1)
  float* m = nullptr;       ///< gathered first moments (batch > 1, some side preconditioned)
  float* tmp = nullptr;     ///< PL·M (both sides preconditioned)
  float* d = nullptr;       ///< Shampoo direction (some side preconditioned)
  float* a = nullptr;       ///< Adam grafting direction
  float* sumsq = nullptr;   ///< [0, batch): ‖A‖², [batch, 2·batch): ‖D‖²
  float* q = nullptr;       ///< eigenvectors, batch × dmax²
  float* w = nullptr;       ///< eigenvalues, batch × dmax
  float* scaled = nullptr;  ///< Q·diag((λ+ε)^-1/4), batch × dmax²
  void* solver = nullptr;
};
ShampooWorkspace carve_shampoo(Carver& carver, const ShampooOptions& o, Shape shape,
                               std::int64_t batch, const SolverBytes& solver);

struct SoapWorkspace {
  float* g = nullptr;   ///< gathered gradients (batch > 1)
  float* q0 = nullptr;  ///< gathered Q0 (batch > 1, left side)
  float* q1 = nullptr;
  float* gg0 = nullptr;  ///< gathered GG0 (batch > 1, left side)
  float* gg1 = nullptr;
  float* m = nullptr;     ///< gathered exp_avg (batch > 1)
  float* ghat = nullptr;  ///< rotated gradient (some side)
  float* ph = nullptr;    ///< rotated exp_avg, then divided by sqrt(V)+eps
  float* tmp = nullptr;   ///< half-rotated product (both sides)
  float* nb = nullptr;    ///< update in the original basis (some side)
  float* sumsq = nullptr;
  float* tmpd = nullptr;   ///< GG·Q, batch × dmax² (refresh)
  float* lam = nullptr;    ///< eigenvalue estimates / eigh values, batch × dmax
  int* perm = nullptr;     ///< batch × dmax
  float* vperm = nullptr;  ///< permuted exp_avg_sq, batch × rows·cols (refresh; = ghat)
  void* solver = nullptr;
};
SoapWorkspace carve_soap(Carver& carver, const SoapOptions& o, Shape shape, std::int64_t batch,
                         const SolverBytes& solver);

/// SOAP's statistics EMA factor (a negative shampoo_beta means beta2).
inline double soap_shampoo_beta(const SoapOptions& o) {
  return o.shampoo_beta < 0 ? o.beta2 : o.shampoo_beta;
}

/// Backend-free workspace bytes (solver workspaces excluded) for the cost model.
std::size_t workspace_bytes_without_solvers(const OptimizerSpec& spec, Shape shape,
                                            std::int64_t batch);

/// A state as a fixed set of named fp32 arrays, one allocation each (so bytes() is exactly the
/// sum the cost model predicts: no padding).
class BufferState final : public MatrixState {
 public:
  static constexpr int kMaxSlots = 8;
  BufferState(OptimizerKind kind, Shape shape) : MatrixState(kind, shape) {}
  /// Allocates a zeroed rows×cols fp32 array in `slot`.
  float* add(backend::Backend& backend, int slot, std::string_view name, std::int64_t rows,
             std::int64_t cols);
  float* at(int slot) const { return ptr_[static_cast<std::size_t>(slot)]; }
  std::vector<StateTensor> tensors() const override { return tensors_; }

 private:
  std::vector<backend::Buffer> buffers_;
  std::vector<StateTensor> tensors_;
  std::array<float*, kMaxSlots> ptr_{};
};

/// State of a two-sided preconditioner (Shampoo, SOAP), in slots 0…5: a first and a second
/// rows×cols moment, then for each side whose dimension is ≤ max_dim a statistic (slots 2, 3)
/// and the matrix derived from it (slots 4, 5: inverse root or eigenbasis).
struct TwoSidedStateNames {
  std::string_view moment, second_moment;
  std::string_view statistic[2];
  std::string_view derived[2];
};
std::unique_ptr<BufferState> make_two_sided_state(backend::Backend& backend, OptimizerKind kind,
                                                  Shape shape, std::int64_t max_dim,
                                                  const TwoSidedStateNames& names);
/// Bytes make_two_sided_state allocates.
std::size_t two_sided_state_bytes(Shape shape, std::int64_t max_dim);

inline BufferState& buffer_state(const StepTask& task) {
  return static_cast<BufferState&>(*task.state);
}

/// Element i of an array of `type` elements starting at `base`.
inline void* element(void* base, std::int64_t i, ElementType type) {
  return static_cast<char*>(base) + static_cast<std::size_t>(i) * backend::element_size(type);
}

/// Host-side pointer lists for the batched backend calls of one group (one Items operand each);
/// the vectors keep their capacity from step to step, so a warm step allocates nothing.
struct ItemLists {
  std::vector<float*> a, b, c, d;
  std::vector<const float*> x, y, z;
  std::vector<void*> dst;
  std::vector<const void*> src;
};

/// `list` refilled with item(i) for i < count, as the Items operand of a batched call.
template <typename T, typename Item>
std::span<T* const> list_of(std::vector<T*>& list, std::size_t count, Item&& item) {
  list.resize(count);
  for (std::size_t i = 0; i < count; ++i) list[i] = item(i);
  return list;
}

/// `count` arrays of n floats back to back from `base`, as one Items operand.
inline backend::Items<float> items(float* base, std::int64_t count, std::int64_t n) {
  return backend::back_to_back(base, count, n);
}
inline backend::Items<const float> items(const float* base, std::int64_t count, std::int64_t n) {
  return backend::back_to_back(base, count, n);
}

/// The tasks' arrays of n floats back to back: the single task's own array when there is one
/// (no copy), otherwise one batched copy into `ws`. Copies are exact, so batching changes no
/// arithmetic.
template <typename Item>
auto gather(backend::Backend& be, ItemLists& lists, std::span<const StepTask> tasks, Item&& item,
            float* ws, std::int64_t n) -> decltype(item(std::size_t{0})) {
  if (tasks.size() == 1) return item(std::size_t{0});
  const auto count = static_cast<std::int64_t>(tasks.size());
  const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
  be.copy(backend::Items<void>(ws, count, bytes),
          list_of(lists.src, tasks.size(), [&](std::size_t i) -> const void* { return item(i); }),
          bytes);
  return ws;
}

/// Inverse of gather for arrays the step wrote (nothing to do for a single task).
template <typename Item>
void scatter(backend::Backend& be, ItemLists& lists, std::span<const StepTask> tasks, Item&& item,
             const float* batch, std::int64_t n) {
  if (tasks.size() == 1) return;
  const auto count = static_cast<std::int64_t>(tasks.size());
  const auto bytes = static_cast<std::size_t>(n) * sizeof(float);
  be.copy(list_of(lists.dst, tasks.size(), [&](std::size_t i) -> void* { return item(i); }),
          backend::Items<const void>(batch, count, bytes), bytes);
}

/// Row-major strided-batched fp32 GEMM: C = alpha·op(A)·op(B) + beta·C with tight leading
/// dimensions and item strides.
void gemm_f32(backend::Backend& be, std::int64_t batch, backend::Trans ta, backend::Trans tb,
              std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
              const float* b, float beta, float* c);

std::unique_ptr<MatrixOptimizer> make_muon(const OptimizerSpec& spec, backend::Backend& be);
std::unique_ptr<MatrixOptimizer> make_shampoo(const OptimizerSpec& spec, backend::Backend& be);
std::unique_ptr<MatrixOptimizer> make_soap(const OptimizerSpec& spec, backend::Backend& be);
std::unique_ptr<MatrixOptimizer> make_adamw(const OptimizerSpec& spec, backend::Backend& be);

/// ConfigError unless rows, cols ≥ 1.
void check_shape(std::int64_t rows, std::int64_t cols, std::string_view what);

}  // namespace canzona::optim::detail
