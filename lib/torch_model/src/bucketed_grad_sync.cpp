// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Gradient accumulation into the ZeRO-1 buffers and the per-bucket DP sync during backward.
#include "canzona/torch_model/bucketed_grad_sync.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

namespace canzona::torch_model {
namespace {

comm::DataType comm_type(const at::Tensor& buffer) {
  switch (buffer.scalar_type()) {
    case at::kFloat:
      return comm::DataType::kFloat32;
    case at::kDouble:
      return comm::DataType::kFloat64;
    case at::kBFloat16:
      return comm::DataType::kBFloat16;
    default:
      break;
  }
  throw ConfigError(fmt::format("gradient buffers of dtype {} cannot be reduced: use float32",
                                c10::toString(buffer.scalar_type())));
}

// Element `offset` of a flat buffer, as a raw pointer for the communicator.
void* element(const at::Tensor& buffer, std::int64_t offset) {
  return static_cast<char*>(buffer.data_ptr()) + offset * buffer.element_size();
}

}  // namespace

// Runs after a parameter's AccumulateGrad node has stored its gradient (Megatron's
// grad-accumulation hook).
class BucketedGradSync::Hook final : public torch::autograd::FunctionPostHook {
 public:
  Hook(BucketedGradSync& owner, std::size_t slot) : owner_(owner), slot_(slot) {}
  torch::autograd::variable_list operator()(
      const torch::autograd::variable_list& outputs,
      const torch::autograd::variable_list& /*inputs*/) override {
    owner_.on_gradient(slot_);
    return outputs;
  }

 private:
  BucketedGradSync& owner_;
  std::size_t slot_;
};

BucketedGradSync::BucketedGradSync(const plan::StepPlan& plan, Qwen3Model& model,
                                   comm::Communicator& dp, OptimizerStep& step)
    : plan_(plan), model_(model), step_(step), dp_rank_(dp.rank()), dp_size_(dp.size()) {
  const layout::Zero1Layout& layout = plan_.layout;
  if (layout.config.dp != dp.size() || layout.config.tp != model.group().size()) {
    throw ConfigError(fmt::format(
        "the plan is for dp={} x tp={} but the job has a DP group of {} and a TP group of {}",
        layout.config.dp, layout.config.tp, dp.size(), model.group().size()));
  }
  if (layout.params.size() != model.param_specs().size()) {
    throw ConfigError(fmt::format("the plan's layout has {} parameters, the model {}",
                                  layout.params.size(), model.param_specs().size()));
  }
  for (std::size_t i = 0; i < layout.params.size(); ++i) {
    if (layout.params[i].name != model.param_specs()[i].name) {
      throw ConfigError(
          fmt::format("parameter {} is '{}' in the plan's layout but '{}' in the model", i,
                      layout.params[i].name, model.param_specs()[i].name));
    }
  }

  // Views of every entry, in model order, then the model moves into them.
  std::vector<at::Tensor> param_views(model.parameters().size());
  for (std::size_t b = 0; b < layout.buffers.size(); ++b) {
    const layout::Buffer& buffer = layout.buffers[b];
    const at::Tensor params = step.params(b);
    const at::Tensor grads = step.grads(b);
    if (params.numel() != buffer.total || grads.numel() != buffer.total) {
      throw ConfigError(fmt::format(
          "buffer '{}' has {} elements in the layout but the optimizer's buffers have {} and {}",
          buffer.name, buffer.total, params.numel(), grads.numel()));
    }
    (void)comm_type(grads);
    BufferState state;
    state.pending.assign(buffer.buckets.size(), 0);
    state.requests.resize(buffer.buckets.size());
    for (const layout::BufferEntry& entry : buffer.entries) {
      const at::Tensor& current = model.parameters().at(entry.param_index);
      if (current.sizes().vec() != entry.shape) {
        throw ConfigError(fmt::format("'{}' has shape [{}] in the layout but [{}] in the model",
                                      entry.name, fmt::join(entry.shape, ", "),
                                      fmt::join(current.sizes(), ", ")));
      }
      param_views[entry.param_index] =
          params.narrow(0, entry.start, entry.numel()).view(entry.shape);
      slots_.push_back({entry.param_index, b, entry.bucket,
                        grads.narrow(0, entry.start, entry.numel()).view(entry.shape)});
      ++state.pending[static_cast<std::size_t>(entry.bucket)];
    }
    state_.push_back(std::move(state));
    comms_.push_back(dp.split(0, dp.rank(), fmt::format("{}.{}", dp.name(), buffer.name)));
  }
  model.bind_parameters(param_views);

  for (std::size_t s = 0; s < slots_.size(); ++s) {
    std::shared_ptr<torch::autograd::Node> accumulator =
        torch::autograd::impl::grad_accumulator(model.parameters()[slots_[s].param]);
    hook_keys_.push_back(accumulator->add_post_hook(std::make_unique<Hook>(*this, s)));
    accumulators_.push_back(std::move(accumulator));
  }
  zero_grads();
}

BucketedGradSync::~BucketedGradSync() {
  for (std::size_t s = 0; s < accumulators_.size(); ++s) {
    accumulators_[s]->del_post_hook(hook_keys_[s]);
  }
}

std::size_t BucketedGradSync::buckets() const noexcept {
  std::size_t n = 0;
  for (const layout::Buffer& buffer : plan_.layout.buffers) {
    n += buffer.buckets.size();
  }
  return n;
}

void BucketedGradSync::zero_grads() {
  for (std::size_t b = 0; b < state_.size(); ++b) {
    step_.grads(b).zero_();
    BufferState& state = state_[b];
    std::fill(state.pending.begin(), state.pending.end(), 0);
    state.next = 0;
  }
  for (const Slot& slot : slots_) {
    ++state_[slot.buffer].pending[static_cast<std::size_t>(slot.bucket)];
  }
  started_in_backward_ = 0;
}

void BucketedGradSync::on_gradient(std::size_t index) {
  const Slot& slot = slots_[index];
  at::Tensor& grad = model_.parameters()[slot.param].mutable_grad();
  if (grad.defined()) {
    slot.grad.add_(grad);
    grad.reset();
  }
  if (!sync_) {
    return;
  }
  BufferState& state = state_[slot.buffer];
  if (--state.pending[static_cast<std::size_t>(slot.bucket)] == 0) {
    start_ready(slot.buffer, /*all=*/false);
  }
  poll();
}

void BucketedGradSync::start_ready(std::size_t buffer, bool all) {
  BufferState& state = state_[buffer];
  while (state.next < static_cast<int>(state.pending.size()) &&
         (all || state.pending[static_cast<std::size_t>(state.next)] == 0)) {
    start(buffer, state.next);
    if (!in_finish_) {
      ++started_in_backward_;
    }
    ++state.next;
  }
}

void BucketedGradSync::start(std::size_t buffer, int bucket) {
  if (dp_size_ == 1) {
    return;  // a group of one issues nothing, as in the executor
  }
  const plan::BufferPlan& buffer_plan = plan_.buffers[buffer];
  const layout::Bucket& range =
      plan_.layout.buffers[buffer].buckets[static_cast<std::size_t>(bucket)];
  const at::Tensor grads = step_.grads(buffer);
  comm::Communicator& comm = *comms_[buffer];
  comm::Request& request = state_[buffer].requests[static_cast<std::size_t>(bucket)];
  if (buffer_plan.grad_sync == plan::GradSync::kReduceScatter) {
    const plan::BucketCuts& cuts = buffer_plan.partition.buckets[static_cast<std::size_t>(bucket)];
    // In place: this rank's part lands at its own offset inside the bucket.
    request = comm.reduce_scatter(element(grads, range.start),
                                  element(grads, cuts.pos[static_cast<std::size_t>(dp_rank_)]),
                                  cuts.counts(), comm_type(grads), comm::ReduceOp::kSum);
  } else {
    request = comm.all_reduce(element(grads, range.start), element(grads, range.start),
                              static_cast<std::size_t>(range.size()), comm_type(grads),
                              comm::ReduceOp::kSum);
  }
}

void BucketedGradSync::poll() {
  for (BufferState& state : state_) {
    for (int k = 0; k < state.next; ++k) {
      (void)state.requests[static_cast<std::size_t>(k)].test();
    }
  }
}

void BucketedGradSync::finish() {
  if (!sync_) {
    return;
  }
  in_finish_ = true;
  for (std::size_t b = 0; b < state_.size(); ++b) {
    start_ready(b, /*all=*/true);
  }
  in_finish_ = false;
  const double inverse_dp = 1.0 / static_cast<double>(dp_size_);
  for (std::size_t b = 0; b < state_.size(); ++b) {
    const plan::BufferPlan& buffer_plan = plan_.buffers[b];
    const layout::Buffer& buffer = plan_.layout.buffers[b];
    const at::Tensor grads = step_.grads(b);
    for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
      state_[b].requests[k].wait();
      if (dp_size_ == 1) {
        continue;
      }
      std::int64_t begin = buffer.buckets[k].start;
      std::int64_t count = buffer.buckets[k].size();
      if (buffer_plan.grad_sync == plan::GradSync::kReduceScatter) {
        const plan::BucketCuts& cuts = buffer_plan.partition.buckets[k];
        begin = cuts.pos[static_cast<std::size_t>(dp_rank_)];
        count = cuts.slice(dp_rank_);
      }
      if (count > 0) {
        grads.narrow(0, begin, count).mul_(inverse_dp);
      }
    }
  }
}

}  // namespace canzona::torch_model
