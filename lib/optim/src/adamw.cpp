// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// AdamW as a MatrixOptimizer: a matrix is a flat vector, one fused backend kernel per step, so
// the executor steps embeddings, heads, norms and biases through the same interface.
#include "detail.hpp"

#include <canzona/core/error.hpp>

#include <cmath>

namespace canzona::optim::detail {

namespace {

enum AdamWSlot { kM = 0, kV };

class AdamW final : public MatrixOptimizer {
 public:
  AdamW(const OptimizerSpec& spec, backend::Backend& be) : MatrixOptimizer(spec, be) {}

  OptimizerKind kind() const noexcept override { return OptimizerKind::kAdamW; }

  std::unique_ptr<MatrixState> make_state(std::int64_t rows, std::int64_t cols) override {
    check_shape(rows, cols, "adamw make_state");
    auto state = std::make_unique<BufferState>(OptimizerKind::kAdamW, Shape{rows, cols});
    state->add(backend_, kM, "exp_avg", rows, cols);
    state->add(backend_, kV, "exp_avg_sq", rows, cols);
    ensure_capacity(Shape{rows, cols}, 1);
    return state;
  }

  std::size_t state_bytes(std::int64_t rows, std::int64_t cols) const override {
    check_shape(rows, cols, "adamw state_bytes");
    return static_cast<std::size_t>(2 * rows * cols) * sizeof(float);
  }

  DirectionRule direction_rule(Shape /*shape*/, int /*step*/) const override {
    throw ConfigError(
        "AdamW has no separate update direction (its step is one fused element-wise kernel)");
  }

  std::size_t workspace_bytes(std::int64_t rows, std::int64_t cols,
                              std::int64_t /*batch*/) const override {
    check_shape(rows, cols, "adamw workspace_bytes");
    return 0;
  }

 protected:
  void run_group(std::span<const StepTask> tasks, void* /*workspace*/) override {
    const AdamWOptions& o = spec_.adamw;
    const int t = tasks.front().state->steps() + 1;
    const auto bias1 = static_cast<float>(1.0 - std::pow(o.beta1, t));
    const auto bias2 = static_cast<float>(1.0 - std::pow(o.beta2, t));
    // One batched step for the whole group of equally sized parameters.
    const std::size_t k = tasks.size();
    const Shape s = tasks.front().state->shape();
    const auto slot = [&tasks](int which) {
      return [&tasks, which](std::size_t i) { return buffer_state(tasks[i]).at(which); };
    };
    backend_.adamw_step(list_of(lists_.a, k, [&tasks](std::size_t i) { return tasks[i].param; }),
                        list_of(lists_.x, k, [&tasks](std::size_t i) { return tasks[i].grad; }),
                        list_of(lists_.b, k, slot(kM)), list_of(lists_.c, k, slot(kV)),
                        s.rows * s.cols, static_cast<float>(o.lr), static_cast<float>(o.beta1),
                        static_cast<float>(o.beta2), static_cast<float>(o.eps),
                        static_cast<float>(o.weight_decay), bias1, bias2);
  }

 private:
  ItemLists lists_;
};

}  // namespace

std::unique_ptr<MatrixOptimizer> make_adamw(const OptimizerSpec& spec, backend::Backend& be) {
  return std::make_unique<AdamW>(spec, be);
}

}  // namespace canzona::optim::detail
