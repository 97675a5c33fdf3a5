// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The optimizer step as the executor sees it: per-matrix state made up front, workspaces
// reserved up front, then steps that only enqueue backend work (no allocation, no host sync).
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/optim/options.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace canzona::optim {

/// A matrix shape, row-major [rows, cols] (PyTorch's nn.Linear weight [out, in]).
struct Shape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  friend bool operator==(const Shape& a, const Shape& b) {
    return a.rows == b.rows && a.cols == b.cols;
  }
};

/// One named fp32 array of a state, for inspection (tests, checkpoints). `data` is in the
/// backend's memory and owned by the state.
struct StateTensor {
  std::string_view name;  ///< "momentum", "exp_avg", "L", "Q0", …
  const float* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

/// The optimizer state of one matrix (or split fragment): its arrays live in backend memory,
/// allocated once by MatrixOptimizer::make_state and freed with this object. The step counter
/// is a host int (it decides refreshes and bias corrections without touching the device).
class MatrixState {
 public:
  virtual ~MatrixState() = default;
  MatrixState(const MatrixState&) = delete;
  MatrixState& operator=(const MatrixState&) = delete;

  OptimizerKind kind() const noexcept { return kind_; }
  Shape shape() const noexcept { return shape_; }
  /// Steps taken with this state so far (SOAP's first, update-free call included).
  int steps() const noexcept { return steps_; }
  /// Backend bytes this state holds (equals MatrixOptimizer::state_bytes(rows, cols)).
  std::size_t bytes() const noexcept { return bytes_; }
  /// The state's arrays, in a fixed order per optimizer. Reading them needs a download.
  virtual std::vector<StateTensor> tensors() const = 0;

 protected:
  MatrixState(OptimizerKind kind, Shape shape) : kind_(kind), shape_(shape) {}
  OptimizerKind kind_;
  Shape shape_;
  int steps_ = 0;
  std::size_t bytes_ = 0;
  friend class MatrixOptimizer;  // advances steps_ after each step
};

/// One matrix of a batched step: its state and the backend pointers of its fp32 parameter and
/// gradient (both rows·cols elements, row-major, contiguous). `shape`, when given (rows > 0),
/// is checked against the state's shape. `name` is only used in error messages.
///
/// `direction`, when set, splits the step in two: the step writes its update direction there
/// (rows·cols elements of direction_type(), row-major) and leaves the parameter alone (`param`
/// may then be null); the caller applies it, whole or piece by piece, with apply_direction.
/// Stepping in place is exactly that pair, so both give bitwise the same parameters. This is
/// how a TP host computes a gathered matrix's update and every TP rank applies its own shard.
struct StepTask {
  MatrixState* state = nullptr;
  float* param = nullptr;
  const float* grad = nullptr;
  Shape shape{};
  std::string_view name{};
  void* direction = nullptr;
};

/// How a step turns its direction u into a parameter update, decoupled weight decay included:
///   kBeforeUpdate: p ← p·(1 − lr·wd) − lr·scale·u;  kAfterUpdate: p ← (p − lr·scale·u)·(1 − lr·wd)
/// (backend::Backend::apply_update with these scalars). `apply` is false for a step that leaves
/// the parameter alone (SOAP's first call only initialises its bases).
struct DirectionRule {
  bool apply = true;
  float lr = 0.0f;
  float weight_decay = 0.0f;
  float scale = 1.0f;
  backend::DecayOrder order = backend::DecayOrder::kBeforeUpdate;
};

/// Element type of the directions `spec`'s optimizer writes (StepTask::direction): the
/// Newton–Schulz type for Muon, fp32 for Shampoo and SOAP. ConfigError for AdamW, which has no
/// separate direction (its step is one fused element-wise kernel).
backend::ElementType direction_type(const OptimizerSpec& spec);

/// A matrix optimizer (Muon, Shampoo, SOAP) or AdamW (which treats a matrix as a flat vector,
/// so the same interface serves every non-matrix parameter with shape [1, numel]) written once
/// against canzona::backend. All arrays are in the backend's memory; steps enqueue work on the
/// backend's stream and never synchronise the host or allocate.
///
/// Non-finite gradients: every step adds the number of NaN/Inf gradient elements to a counter
/// in backend memory. The step is NOT skipped on the device (that would need a host round
/// trip); callers that want a clean error check nonfinite_gradients() after the step (see
/// check_finite_gradients). On the cpu backend that check is free, so it can run eagerly after
/// every step.
class MatrixOptimizer {
 public:
  virtual ~MatrixOptimizer() = default;
  MatrixOptimizer(const MatrixOptimizer&) = delete;
  MatrixOptimizer& operator=(const MatrixOptimizer&) = delete;

  virtual OptimizerKind kind() const noexcept = 0;
  /// "muon", "shampoo", "soap" or "adamw".
  std::string_view name() const noexcept { return to_string(kind()); }
  const OptimizerSpec& spec() const noexcept { return spec_; }
  backend::Backend& backend() const noexcept { return backend_; }

  /// Zero-initialised state for a rows×cols matrix, allocated now in backend memory (blocking).
  /// Also reserves a batch-of-one workspace for this shape, so step() works without reserve().
  /// ConfigError for a non-positive shape.
  virtual std::unique_ptr<MatrixState> make_state(std::int64_t rows, std::int64_t cols) = 0;

  /// Backend bytes of one state of a rows×cols matrix (what make_state allocates).
  virtual std::size_t state_bytes(std::int64_t rows, std::int64_t cols) const = 0;

  /// Workspace bytes a batch of `batch` equally shaped rows×cols matrices needs on this
  /// optimizer's backend (solver workspaces included).
  virtual std::size_t workspace_bytes(std::int64_t rows, std::int64_t cols,
                                      std::int64_t batch) const = 0;

  /// Grows the one shared workspace so every shape in `shapes` can be stepped `max_batch`
  /// matrices at a time. Allocates (blocking); call before the timed region. Larger groups in
  /// step_batch are cut into chunks of the reserved batch size.
  void reserve(std::span<const Shape> shapes, std::int64_t max_batch);

  /// Bytes of the shared workspace allocated so far.
  std::size_t reserved_workspace_bytes() const noexcept;

  /// One step of one matrix: param ← update(state, grad). Enqueued; does not synchronise.
  void step(MatrixState& state, float* param, const float* grad);

  /// Steps every task. Tasks of equal shape (and equal step count) are grouped and run through
  /// strided-batched GEMMs / batched solvers and batched element-wise operations over the
  /// matrices' own arrays (backend Items), after copying per-matrix operands into contiguous
  /// batch workspaces (one batched copy) where a GEMM needs them: the backend operations of a
  /// step grow with the number of shape groups, not with the number of matrices (apart from
  /// SOAP's eigenbasis refresh, per matrix every precondition_frequency steps).
  /// The results equal stepping the tasks one by one with the same backend up to the summation
  /// order inside the backend's batched GEMM/solver (bitwise where the backend runs a batch as
  /// a loop over items, as the cpu backend does). A state may appear at most once.
  /// Enqueued; does not synchronise. ConfigError on a shape mismatch or a foreign state.
  void step_batch(std::span<const StepTask> tasks);

  /// Element type of StepTask::direction (see the free function direction_type).
  backend::ElementType direction_type() const { return optim::direction_type(spec_); }

  /// The rule of step number `step` (1-based: the state's steps() once that step is taken) for
  /// a rows×cols matrix `shape`. A pure function of (spec, shape, step), so a rank that holds no
  /// state for the matrix (a TP rank applying its shard) gets the host's rule.
  virtual DirectionRule direction_rule(Shape shape, int step) const = 0;

  /// Applies `n` elements of a direction of a `shape` matrix to `param` (the whole matrix, or
  /// any contiguous piece of it: the rule is element-wise) as step number `step` does.
  /// Enqueued; does not synchronise.
  void apply_direction(float* param, const void* direction, std::int64_t n, Shape shape, int step);

  /// NaN/Inf gradient elements seen since construction or the last reset. Synchronises.
  std::size_t nonfinite_gradients();
  /// Zeroes the non-finite counter (enqueued, no synchronisation).
  void reset_nonfinite_gradients();

 protected:
  MatrixOptimizer(const OptimizerSpec& spec, backend::Backend& backend);

  /// Runs one chunk of tasks with equal shape and step count (size ≤ the reserved batch) using
  /// `workspace` (workspace_bytes(shape, tasks.size()) bytes). Must not touch the step counters.
  virtual void run_group(std::span<const StepTask> tasks, void* workspace) = 0;

  /// The end of the step of a group of tasks (equal shape and step count) given their
  /// directions `u`: tasks.size() arrays of rows·cols elements of direction_type() back to back,
  /// read before the next backend operation. Each task's direction is copied to its
  /// task.direction, or applied to its task.param as step number state.steps() + 1: one batched
  /// copy and one batched apply_update for the whole group.
  void finish(std::span<const StepTask> tasks, const void* u);

  /// Records that `batch` items of `shape` fit the shared workspace (grows it if needed).
  void ensure_capacity(Shape shape, std::int64_t batch);

  OptimizerSpec spec_;
  backend::Backend& backend_;

 private:
  struct Capacity {
    Shape shape;
    std::int64_t batch;
  };
  std::int64_t capacity(Shape shape) const;
  void check_task(const StepTask& task) const;

  backend::Buffer workspace_;
  backend::Buffer counter_;  // one int: NaN/Inf gradient elements
  std::vector<Capacity> capacities_;
  std::vector<StepTask> scratch_;    // host-side grouping, capacity kept between steps
  std::vector<const float*> grads_;  // one shape's gradients, for one non-finite count
  // finish(): the items of its batched copy (direction ← u) and batched apply (param ← u).
  std::vector<void*> split_dst_;
  std::vector<const void*> split_src_;
  std::vector<float*> apply_params_;
  std::vector<const void*> apply_src_;
  std::vector<const MatrixState*> seen_;  // duplicate-state check
};

/// The optimizer `spec` names on `backend` (which must outlive it). Validates the spec
/// (ConfigError naming the bad hyper-parameter). Allocates its non-finite counter (blocking).
std::unique_ptr<MatrixOptimizer> make_matrix_optimizer(const OptimizerSpec& spec,
                                                       backend::Backend& backend);

/// The largest gradient magnitude an fp32 step of `spec` on a `shape` matrix takes without its
/// sums of squares overflowing float32: sqrt(FLT_MAX / (16 · k)) with k the number of squares
/// one statistic entry sums (Shampoo / SOAP: max(rows, cols), for G·Gᵀ and Gᵀ·G; Muon: rows ·
/// cols, for the Frobenius norm; AdamW: 1), and a factor 16 of headroom for the running averages
/// and the eigensolver. Above it the statistics become inf and the eigensolver fails; the
/// preconditioned updates are invariant to the gradient's scale, so scaling the gradient is
/// the fix. The double-precision reference has no such limit within finite inputs.
double fp32_gradient_limit(const OptimizerSpec& spec, Shape shape);

/// ConfigError naming the element, its value, the limit and the fix when a gradient element of
/// `gradient` (host values, `source` names them) exceeds fp32_gradient_limit.
void check_fp32_gradient_range(const OptimizerSpec& spec, Shape shape,
                               std::span<const double> gradient, std::string_view source);

/// The CLI's check after a step: throws canzona::Error naming `parameter` and the count when
/// `optimizer` saw non-finite gradient elements (and resets the counter). Synchronises.
void check_finite_gradients(MatrixOptimizer& optimizer, std::string_view parameter);

}  // namespace canzona::optim
