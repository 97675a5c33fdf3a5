// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The implementations behind the OptimizerStep seam.
#include "canzona/torch_model/optimizer_step.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/exec/executor.hpp>

#include <utility>
#include <vector>

namespace canzona::torch_model {
namespace {

// The executor owns fp32 buffers in cpu-backend (host) memory; the tensors are views of them.
class ExecutorStep final : public OptimizerStep {
 public:
  ExecutorStep(const plan::StepPlan& plan, comm::Communicator& world, comm::Communicator& dp,
               comm::Communicator& tp)
      : backend_(backend::make_backend("cpu")), executor_(plan, world, dp, tp, *backend_) {}

  at::Tensor params(std::size_t buffer) override {
    return at::from_blob(executor_.params(buffer), {executor_.buffer_elements(buffer)},
                         at::TensorOptions().dtype(at::kFloat));
  }
  at::Tensor grads(std::size_t buffer) override {
    return at::from_blob(executor_.grads(buffer), {executor_.buffer_elements(buffer)},
                         at::TensorOptions().dtype(at::kFloat));
  }
  // Executor::step() starts with its own DP gradient sync (lib/exec, step 1).
  bool syncs_gradients() const override { return true; }
  void step() override { executor_.step(); }

 private:
  std::unique_ptr<backend::Backend> backend_;  // before executor_, which refers to it
  exec::Executor executor_;
};

class NoOptimizerStep final : public OptimizerStep {
 public:
  NoOptimizerStep(const plan::StepPlan& plan, at::ScalarType dtype, at::Device device) {
    const at::TensorOptions options = at::TensorOptions().dtype(dtype).device(device);
    for (const layout::Buffer& buffer : plan.layout.buffers) {
      params_.push_back(at::zeros({buffer.total}, options));
      grads_.push_back(at::zeros({buffer.total}, options));
    }
  }
  at::Tensor params(std::size_t buffer) override { return params_.at(buffer); }
  at::Tensor grads(std::size_t buffer) override { return grads_.at(buffer); }
  bool syncs_gradients() const override { return false; }
  void step() override {}

 private:
  std::vector<at::Tensor> params_;
  std::vector<at::Tensor> grads_;
};

}  // namespace

std::unique_ptr<OptimizerStep> make_executor_step(const plan::StepPlan& plan,
                                                  comm::Communicator& world, comm::Communicator& dp,
                                                  comm::Communicator& tp) {
  return std::make_unique<ExecutorStep>(plan, world, dp, tp);
}

std::unique_ptr<OptimizerStep> make_no_optimizer_step(const plan::StepPlan& plan,
                                                      at::ScalarType dtype, at::Device device) {
  return std::make_unique<NoOptimizerStep>(plan, dtype, device);
}

}  // namespace canzona::torch_model
