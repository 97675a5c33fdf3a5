// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What every optimizer shares: validation, the shared workspace, grouping of batched steps by
// shape, the non-finite gradient counter, and the factory.
#include "canzona/optim/matrix_optimizer.hpp"

#include "detail.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

namespace canzona::optim {

namespace detail {

void check_shape(std::int64_t rows, std::int64_t cols, std::string_view what) {
  if (rows < 1 || cols < 1) {
    throw ConfigError(
        fmt::format("{}: matrix shape [{}, {}] is invalid; rows and cols must be >= 1 (a 1-D "
                    "parameter of n elements is [1, n])",
                    what, rows, cols));
  }
}

float* BufferState::add(backend::Backend& backend, int slot, std::string_view name,
                        std::int64_t rows, std::int64_t cols) {
  const auto bytes = static_cast<std::size_t>(rows * cols) * sizeof(float);
  buffers_.push_back(backend.allocate(bytes));  // zero-filled
  auto* data = buffers_.back().as<float>();
  ptr_[static_cast<std::size_t>(slot)] = data;
  tensors_.push_back(StateTensor{name, data, rows, cols});
  bytes_ += bytes;
  return data;
}

std::unique_ptr<BufferState> make_two_sided_state(backend::Backend& backend, OptimizerKind kind,
                                                  Shape shape, std::int64_t max_dim,
                                                  const TwoSidedStateNames& names) {
  auto state = std::make_unique<BufferState>(kind, shape);
  state->add(backend, 0, names.moment, shape.rows, shape.cols);
  state->add(backend, 1, names.second_moment, shape.rows, shape.cols);
  const std::int64_t dims[2] = {shape.rows, shape.cols};
  for (int side = 0; side < 2; ++side) {
    if (dims[side] <= max_dim) {
      state->add(backend, 2 + side, names.statistic[side], dims[side], dims[side]);
    }
  }
  for (int side = 0; side < 2; ++side) {
    if (dims[side] <= max_dim) {
      state->add(backend, 4 + side, names.derived[side], dims[side], dims[side]);
    }
  }
  return state;
}

std::size_t two_sided_state_bytes(Shape shape, std::int64_t max_dim) {
  std::int64_t floats = 2 * shape.rows * shape.cols;
  if (shape.rows <= max_dim) floats += 2 * shape.rows * shape.rows;
  if (shape.cols <= max_dim) floats += 2 * shape.cols * shape.cols;
  return static_cast<std::size_t>(floats) * sizeof(float);
}

void gemm_f32(backend::Backend& be, std::int64_t batch, backend::Trans ta, backend::Trans tb,
              std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
              const float* b, float beta, float* c) {
  backend::GemmArgs g;
  g.trans_a = ta;
  g.trans_b = tb;
  g.m = m;
  g.n = n;
  g.k = k;
  g.alpha = alpha;
  g.beta = beta;
  g.a = a;
  g.b = b;
  g.c = c;
  // Row-major storage: op(A) is m×k, so A is stored m×k (lda = k) or k×m (lda = m).
  g.lda = ta == backend::Trans::kNo ? k : m;
  g.ldb = tb == backend::Trans::kNo ? n : k;
  g.ldc = n;
  g.batch = batch;
  g.stride_a = m * k;
  g.stride_b = k * n;
  g.stride_c = m * n;
  be.gemm(g);
}

}  // namespace detail

MatrixOptimizer::MatrixOptimizer(const OptimizerSpec& spec, backend::Backend& backend)
    : spec_(spec), backend_(backend), counter_(backend.allocate(sizeof(int))) {}

void MatrixOptimizer::ensure_capacity(Shape shape, std::int64_t batch) {
  detail::check_shape(shape.rows, shape.cols, name());
  if (batch < 1) {
    throw ConfigError(fmt::format("{}: reserve needs max_batch >= 1, got {}", name(), batch));
  }
  const std::size_t need = workspace_bytes(shape.rows, shape.cols, batch);
  if (need > workspace_.bytes()) {
    // The old workspace may still be read by enqueued work; reserve() is outside the timed
    // region, so a synchronisation here costs nothing that matters.
    backend_.synchronize();
    workspace_ = backend::Buffer{};
    workspace_ = backend_.allocate(need);
  }
  for (auto& c : capacities_) {
    if (c.shape == shape) {
      c.batch = std::max(c.batch, batch);
      return;
    }
  }
  capacities_.push_back(Capacity{shape, batch});
}

void MatrixOptimizer::reserve(std::span<const Shape> shapes, std::int64_t max_batch) {
  for (const Shape& s : shapes) ensure_capacity(s, max_batch);
}

std::size_t MatrixOptimizer::reserved_workspace_bytes() const noexcept {
  return workspace_.bytes();
}

std::int64_t MatrixOptimizer::capacity(Shape shape) const {
  for (const auto& c : capacities_) {
    if (c.shape == shape) return c.batch;
  }
  return 0;
}

void MatrixOptimizer::check_task(const StepTask& task) const {
  const std::string_view label = task.name.empty() ? std::string_view{"<unnamed>"} : task.name;
  if (task.state == nullptr || task.grad == nullptr ||
      (task.param == nullptr && task.direction == nullptr)) {
    throw ConfigError(
        fmt::format("{} step of parameter '{}': state, grad and a param or a direction "
                    "output must be given",
                    name(), label));
  }
  if (task.direction != nullptr && kind() == OptimizerKind::kAdamW) {
    throw ConfigError(fmt::format(
        "adamw step of parameter '{}': AdamW has no separate direction; step it in place", label));
  }
  if (task.state->kind() != kind()) {
    throw ConfigError(
        fmt::format("{} step of parameter '{}': its state was made by {}; make it "
                    "with this optimizer's make_state",
                    name(), label, to_string(task.state->kind())));
  }
  const Shape s = task.state->shape();
  if ((task.shape.rows != 0 || task.shape.cols != 0) && !(task.shape == s)) {
    throw ConfigError(
        fmt::format("{} step of parameter '{}': shape [{}, {}] does not match its "
                    "state's shape [{}, {}]",
                    name(), label, task.shape.rows, task.shape.cols, s.rows, s.cols));
  }
}

void MatrixOptimizer::step(MatrixState& state, float* param, const float* grad) {
  const StepTask task{&state, param, grad, {}, {}};
  step_batch(std::span<const StepTask>(&task, 1));
}

void MatrixOptimizer::step_batch(std::span<const StepTask> tasks) {
  if (tasks.empty()) return;
  for (const StepTask& t : tasks) check_task(t);

  // Group by (shape, step count): equal step counts share refresh decisions and bias
  // corrections. stable_sort keeps the callers' order inside a group. The host vector keeps
  // its capacity between steps.
  scratch_.assign(tasks.begin(), tasks.end());
  std::stable_sort(scratch_.begin(), scratch_.end(), [](const StepTask& a, const StepTask& b) {
    return std::make_tuple(a.state->shape().rows, a.state->shape().cols, a.state->steps()) <
           std::make_tuple(b.state->shape().rows, b.state->shape().cols, b.state->steps());
  });
  seen_.clear();
  for (const StepTask& t : scratch_) seen_.push_back(t.state);
  std::sort(seen_.begin(), seen_.end());
  if (const auto dup = std::adjacent_find(seen_.begin(), seen_.end()); dup != seen_.end()) {
    const auto it = std::find_if(scratch_.begin(), scratch_.end(),
                                 [&](const StepTask& t) { return t.state == *dup; });
    throw ConfigError(
        fmt::format("{} step_batch: the state of parameter '{}' appears twice", name(), it->name));
  }

  // One non-finite count per shape (scratch_ is sorted by shape).
  auto* counter = counter_.as<int>();
  for (std::size_t first = 0; first < scratch_.size();) {
    const Shape s = scratch_[first].state->shape();
    grads_.clear();
    std::size_t end = first;
    for (; end < scratch_.size() && scratch_[end].state->shape() == s; ++end) {
      grads_.push_back(scratch_[end].grad);
    }
    backend_.count_nonfinite(std::span<const float* const>(grads_), s.rows * s.cols, counter);
    first = end;
  }

  std::size_t begin = 0;
  while (begin < scratch_.size()) {
    const MatrixState& first = *scratch_[begin].state;
    std::size_t end = begin + 1;
    while (end < scratch_.size() && scratch_[end].state->shape() == first.shape() &&
           scratch_[end].state->steps() == first.steps()) {
      ++end;
    }
    const auto cap = static_cast<std::size_t>(capacity(first.shape()));
    CANZONA_CHECK(cap >= 1, "every state's shape has a workspace from make_state");
    for (std::size_t c = begin; c < end; c += cap) {
      const std::size_t count = std::min(cap, end - c);
      run_group(std::span<const StepTask>(scratch_.data() + c, count), workspace_.data());
    }
    begin = end;
  }
  for (const StepTask& t : scratch_) ++t.state->steps_;
}

void MatrixOptimizer::apply_direction(float* param, const void* direction, std::int64_t n,
                                      Shape shape, int step) {
  const DirectionRule rule = direction_rule(shape, step);
  if (!rule.apply || n == 0) return;
  backend_.apply_update(param, direction, direction_type(), n, 1, rule.lr, rule.weight_decay,
                        rule.scale, rule.order, nullptr, nullptr);
}

void MatrixOptimizer::finish(std::span<const StepTask> tasks, const void* u) {
  if (tasks.empty()) return;
  const Shape s = tasks.front().state->shape();
  const std::int64_t n = s.rows * s.cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * backend::element_size(direction_type());
  split_dst_.clear();
  split_src_.clear();
  apply_params_.clear();
  apply_src_.clear();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const void* ui = static_cast<const unsigned char*>(u) + i * bytes;
    if (tasks[i].direction != nullptr) {
      split_dst_.push_back(tasks[i].direction);
      split_src_.push_back(ui);
    } else {
      apply_params_.push_back(tasks[i].param);
      apply_src_.push_back(ui);
    }
  }
  if (!split_dst_.empty()) {
    backend_.copy(std::span<void* const>(split_dst_), std::span<const void* const>(split_src_),
                  bytes);
  }
  const DirectionRule rule = direction_rule(s, tasks.front().state->steps() + 1);
  if (apply_params_.empty() || !rule.apply || n == 0) return;
  backend_.apply_update(std::span<float* const>(apply_params_),
                        std::span<const void* const>(apply_src_), direction_type(), n, rule.lr,
                        rule.weight_decay, rule.scale, rule.order, nullptr, nullptr);
}

std::size_t MatrixOptimizer::nonfinite_gradients() {
  int host = 0;
  backend_.synchronize();
  backend_.download(&host, counter_.data(), sizeof(int));
  return static_cast<std::size_t>(host);
}

void MatrixOptimizer::reset_nonfinite_gradients() {
  backend_.fill_zero(counter_.data(), sizeof(int));
}

backend::ElementType direction_type(const OptimizerSpec& spec) {
  switch (spec.kind) {
    case OptimizerKind::kMuon:
      return detail::ns_type(spec.muon);
    case OptimizerKind::kShampoo:
    case OptimizerKind::kSoap:
      return backend::ElementType::kFloat32;
    case OptimizerKind::kAdamW:
      break;
  }
  throw ConfigError(
      "AdamW has no separate update direction (its step is one fused element-wise kernel); "
      "only muon, shampoo and soap split a step into direction and apply");
}

std::unique_ptr<MatrixOptimizer> make_matrix_optimizer(const OptimizerSpec& spec,
                                                       backend::Backend& backend) {
  validate(spec);
  switch (spec.kind) {
    case OptimizerKind::kMuon:
      return detail::make_muon(spec, backend);
    case OptimizerKind::kShampoo:
      return detail::make_shampoo(spec, backend);
    case OptimizerKind::kSoap:
      return detail::make_soap(spec, backend);
    case OptimizerKind::kAdamW:
      return detail::make_adamw(spec, backend);
  }
  throw ConfigError(fmt::format("unknown optimizer kind {}", static_cast<int>(spec.kind)));
}

double fp32_gradient_limit(const OptimizerSpec& spec, Shape shape) {
  double squares = 1;  // AdamW: the second moment of one element
  switch (spec.kind) {
    case OptimizerKind::kShampoo:
    case OptimizerKind::kSoap:
      squares = static_cast<double>(std::max(shape.rows, shape.cols));
      break;
    case OptimizerKind::kMuon:
      squares = static_cast<double>(shape.rows) * static_cast<double>(shape.cols);
      break;
    case OptimizerKind::kAdamW:
      break;
  }
  constexpr double kHeadroom = 16;
  return std::sqrt(static_cast<double>(std::numeric_limits<float>::max()) /
                   (kHeadroom * std::max(1.0, squares)));
}

void check_fp32_gradient_range(const OptimizerSpec& spec, Shape shape,
                               std::span<const double> gradient, std::string_view source) {
  const double limit = fp32_gradient_limit(spec, shape);
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    if (std::abs(gradient[i]) > limit) {
      throw ConfigError(fmt::format(
          "{}: gradient element {} is {:g}, above {:g}, the largest magnitude an fp32 {} step "
          "of a {}x{} matrix takes (its sums of squares would overflow float32); scale the "
          "gradient down (the preconditioned update does not depend on its scale) or use "
          "--backend reference (double precision)",
          source, i, gradient[i], limit, to_string(spec.kind), shape.rows, shape.cols));
    }
  }
}

void check_finite_gradients(MatrixOptimizer& optimizer, std::string_view parameter) {
  const std::size_t bad = optimizer.nonfinite_gradients();
  if (bad == 0) return;
  optimizer.reset_nonfinite_gradients();
  throw Error(
      fmt::format("non-finite gradient: parameter '{}' has {} NaN/Inf element(s) "
                  "({} step); the update was applied on the device, so the parameter is "
                  "no longer trustworthy (check the loss scale and the inputs)",
                  parameter, bad, optimizer.name()));
}

}  // namespace canzona::optim
