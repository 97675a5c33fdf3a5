// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Parameters as views into the executor's buffers, gradient accumulation into its gradient
// buffers, and bucket completion reported to the executor during backward.
#include "canzona/torch_model/distributed_data_parallel.hpp"

#include <canzona/core/error.hpp>

#include <c10/core/impl/VirtualGuardImpl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <string_view>

namespace canzona::torch_model {
namespace {

at::ScalarType scalar_type(backend::ElementType type) {
  return type == backend::ElementType::kBFloat16 ? at::kBFloat16 : at::kFloat;
}

// Flat tensor over executor memory (which the executor owns and keeps for its lifetime).
at::Tensor flat_view(void* data, std::int64_t elements, backend::ElementType type,
                     at::Device device) {
  return at::from_blob(data, {elements},
                       at::TensorOptions().dtype(scalar_type(type)).device(device));
}

void check_placement(const Qwen3Model& model, const exec::Executor& executor,
                     const backend::Backend& backend) {
  const bool host = backend.name() == "cpu";
  if (host != model.device().is_cpu()) {
    throw ConfigError(fmt::format(
        "the model is on {} but the executor's buffers are in {} memory ({} backend): build the "
        "model on the CPU for the cpu backend and on the GPU for the cuda backend",
        model.device().str(), host ? "host" : "device", backend.name()));
  }
  const at::ScalarType params = scalar_type(executor.param_type());
  if (model.dtype() != params) {
    throw ConfigError(fmt::format(
        "the model computes in {} but the plan keeps model parameters in {}: build the model "
        "with that dtype (ModelOptions::dtype) or change the plan's parameter precision",
        c10::toString(model.dtype()), c10::toString(params)));
  }
}

void check_layout(const Qwen3Model& model, const plan::StepPlan& plan) {
  const layout::Zero1Layout& layout = plan.layout;
  if (layout.model != model.spec().name || layout.config.tp != model.group().size() ||
      layout.params.size() != model.param_specs().size()) {
    throw ConfigError(
        fmt::format("the plan is for {} at tp={} ({} parameters) but the model is {} at tp={} ({} "
                    "parameters): build the plan for the model and its TP group",
                    layout.model, layout.config.tp, layout.params.size(), model.spec().name,
                    model.group().size(), model.param_specs().size()));
  }
  for (std::size_t i = 0; i < layout.params.size(); ++i) {
    if (layout.params[i].name != model.param_specs()[i].name) {
      throw ConfigError(fmt::format("parameter {} is '{}' in the plan but '{}' in the model", i,
                                    layout.params[i].name, model.param_specs()[i].name));
    }
  }
  for (const layout::Buffer& buffer : layout.buffers) {
    for (const layout::BufferEntry& entry : buffer.entries) {
      const at::Tensor& param = model.parameters().at(entry.param_index);
      if (param.sizes().vec() != entry.shape) {
        throw ConfigError(fmt::format("'{}' has shape [{}] in the plan but [{}] in the model",
                                      entry.name, fmt::join(entry.shape, ", "),
                                      fmt::join(param.sizes(), ", ")));
      }
    }
  }
}

// Waits until `device`'s current torch stream has run everything enqueued so far (CUDA only).
void wait_for_torch(at::Device device) {
  if (device.is_cuda()) {
    const c10::impl::VirtualGuardImpl guard(device.type());
    guard.getStream(device).synchronize();
  }
}

}  // namespace

// Runs after a parameter's AccumulateGrad node has stored its gradient (Megatron's
// grad-accumulation hook).
class DistributedDataParallel::Hook final : public torch::autograd::FunctionPostHook {
 public:
  Hook(DistributedDataParallel& owner, std::size_t slot) : owner_(owner), slot_(slot) {}
  torch::autograd::variable_list operator()(
      const torch::autograd::variable_list& outputs,
      const torch::autograd::variable_list& /*inputs*/) override {
    owner_.on_gradient(slot_);
    return outputs;
  }

 private:
  DistributedDataParallel& owner_;
  std::size_t slot_;
};

DistributedDataParallel::DistributedDataParallel(Qwen3Model& model, exec::Executor& executor,
                                                 backend::Backend& backend)
    : model_(model), executor_(executor), backend_(backend) {
  const plan::StepPlan& plan = executor.plan();
  check_placement(model, executor, backend);
  check_layout(model, plan);

  std::vector<at::Tensor> param_views(model.parameters().size());
  for (std::size_t b = 0; b < plan.layout.buffers.size(); ++b) {
    const layout::Buffer& buffer = plan.layout.buffers[b];
    const at::Tensor params =
        flat_view(executor.params(b), buffer.total, executor.param_type(), model.device());
    grad_buffers_.push_back(
        flat_view(executor.grads(b), buffer.total, executor.grad_type(), model.device()));
    pending_.emplace_back(buffer.buckets.size(), 0);
    buckets_ += buffer.buckets.size();
    for (const layout::BufferEntry& entry : buffer.entries) {
      param_views[entry.param_index] =
          params.narrow(0, entry.start, entry.numel()).view(entry.shape);
      slots_.push_back(
          {entry.param_index, b, static_cast<std::size_t>(entry.bucket),
           grad_buffers_.back().narrow(0, entry.start, entry.numel()).view(entry.shape)});
    }
  }
  if (std::any_of(param_views.begin(), param_views.end(),
                  [](const at::Tensor& view) { return !view.defined(); })) {
    throw ConfigError("the plan's buffers leave a model parameter out");
  }
  model.bind_parameters(param_views);
  executor.reload_main_params();

  for (std::size_t s = 0; s < slots_.size(); ++s) {
    std::shared_ptr<torch::autograd::Node> accumulator =
        torch::autograd::impl::grad_accumulator(model.parameters()[slots_[s].param]);
    hook_keys_.push_back(accumulator->add_post_hook(std::make_unique<Hook>(*this, s)));
    accumulators_.push_back(std::move(accumulator));
  }
  zero_grads();
}

DistributedDataParallel::~DistributedDataParallel() {
  for (std::size_t s = 0; s < accumulators_.size(); ++s) {
    accumulators_[s]->del_post_hook(hook_keys_[s]);
  }
}

void DistributedDataParallel::zero_grads() {
  for (at::Tensor& grads : grad_buffers_) {
    grads.zero_();
  }
  set_sync(sync_);
}

void DistributedDataParallel::set_sync(bool enabled) {
  sync_ = enabled;
  if (!enabled) {
    return;
  }
  for (std::vector<int>& counts : pending_) {
    std::fill(counts.begin(), counts.end(), 0);
  }
  for (const Slot& slot : slots_) {
    ++pending_[slot.buffer][slot.bucket];
  }
  gradients_pending_ = slots_.size();
  reports_.clear();
}

void DistributedDataParallel::after_step() {
  if (model_.device().is_cuda()) {
    backend_.synchronize();
  }
}

void DistributedDataParallel::on_gradient(std::size_t index) {
  const Slot& slot = slots_[index];
  at::Tensor& grad = model_.parameters()[slot.param].mutable_grad();
  if (grad.defined()) {
    slot.grad.add_(grad);
    grad.reset();
  }
  if (!sync_) {
    return;
  }
  --gradients_pending_;
  if (--pending_[slot.buffer][slot.bucket] == 0) {
    wait_for_torch(model_.device());
    reports_.push_back({slot.buffer, slot.bucket, gradients_pending_});
    executor_.grad_bucket_ready(slot.buffer, slot.bucket);
  }
}

}  // namespace canzona::torch_model
