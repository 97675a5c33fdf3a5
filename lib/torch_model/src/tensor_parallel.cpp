// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The TP group's all-reduce and Megatron's TP region functions as custom autograd functions.
// Autograd nodes keep the group's address (an int64 in saved_data: IValues hold no raw
// pointers), hence the lifetime rule in tensor_parallel.hpp.
#include "canzona/torch_model/tensor_parallel.hpp"

#include <canzona/core/error.hpp>
#include <canzona/layout/tp_shapes.hpp>

#include <fmt/format.h>
#include <torch/csrc/autograd/custom_function.h>

#include <algorithm>
#include <limits>

#if CANZONA_TORCH_DEVICE_COLLECTIVES
#include "device_collectives.hpp"
#endif

namespace canzona::torch_model {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::Function;
using torch::autograd::variable_list;

comm::DataType comm_type(const at::Tensor& tensor, const comm::Communicator& comm) {
  switch (tensor.scalar_type()) {
    case at::kFloat:
      return comm::DataType::kFloat32;
    case at::kDouble:
      return comm::DataType::kFloat64;
    case at::kBFloat16:
      return comm::DataType::kBFloat16;
    case at::kHalf:
      return comm::DataType::kFloat16;
    case at::kInt:
      return comm::DataType::kInt32;
    case at::kLong:
      return comm::DataType::kInt64;
    default:
      break;
  }
  throw ConfigError(fmt::format("tensor-parallel group '{}': cannot reduce {} tensors", comm.name(),
                                c10::toString(tensor.scalar_type())));
}

void check_device(const at::Tensor& tensor, const comm::Communicator& comm) {
  const bool host = comm.memory_space() == comm::MemorySpace::kHost;
  if (host ? tensor.device().is_cpu() : tensor.device().is_cuda()) {
    return;
  }
  throw ConfigError(fmt::format(
      "tensor-parallel group '{}' ({} backend) reduces {} tensors, but this one is on {}; run "
      "CPU models over MPI and CUDA models over NCCL",
      comm.name(), comm.backend(), host ? "CPU" : "CUDA", tensor.device().str()));
}

std::int64_t address_of(const TensorParallelGroup* group) {
  return reinterpret_cast<std::int64_t>(group);
}

const TensorParallelGroup& group_of(AutogradContext* ctx) {
  return *reinterpret_cast<const TensorParallelGroup*>(ctx->saved_data["group"].toInt());
}

struct CopyToTensorParallel : public Function<CopyToTensorParallel> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& input,
                            const TensorParallelGroup* group) {
    ctx->saved_data["group"] = address_of(group);
    return input;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {group_of(ctx).all_reduce(grads[0]), at::Tensor()};
  }
};

struct ReduceFromTensorParallel : public Function<ReduceFromTensorParallel> {
  static at::Tensor forward(AutogradContext* /*ctx*/, const at::Tensor& input,
                            const TensorParallelGroup* group) {
    return group->all_reduce(input);
  }
  static variable_list backward(AutogradContext* /*ctx*/, variable_list grads) {
    return {grads[0], at::Tensor()};
  }
};

// Megatron's _VocabParallelCrossEntropy, restricted to the real vocabulary columns.
struct VocabParallelCrossEntropy : public Function<VocabParallelCrossEntropy> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& logits,
                            const at::Tensor& labels, VocabShard shard,
                            const TensorParallelGroup* group) {
    const at::ScalarType accumulate =
        logits.scalar_type() == at::kDouble ? at::kDouble : at::ScalarType::Float;
    const std::int64_t n = logits.size(0);
    const at::TensorOptions options = logits.options().dtype(accumulate);
    const at::Tensor local = logits.narrow(1, 0, shard.valid).to(accumulate);
    // A rank whose shard is all padding contributes -inf to the max and 0 to the sums.
    const at::Tensor local_max =
        shard.valid > 0 ? std::get<0>(local.max(1))
                        : at::full({n}, -std::numeric_limits<double>::infinity(), options);
    const at::Tensor max = group->all_reduce(local_max, comm::ReduceOp::kMax);
    const at::Tensor shifted = local - max.unsqueeze(1);
    at::Tensor exp = shifted.exp();
    const at::Tensor in_shard = (labels >= shard.start) & (labels < shard.start + shard.valid);
    const at::Tensor index = (labels - shard.start).masked_fill(in_shard.logical_not(), 0);
    const at::Tensor target = shard.valid > 0 ? shifted.gather(1, index.unsqueeze(1))
                                                    .squeeze(1)
                                                    .masked_fill(in_shard.logical_not(), 0)
                                              : at::zeros({n}, options);
    // Σexp and the target logit (held by exactly one rank) in one all-reduce.
    const at::Tensor sums = group->all_reduce(at::stack({exp.sum(1), target}));
    const at::Tensor sum_exp = sums[0];
    const at::Tensor loss = sum_exp.log() - sums[1];

    ctx->save_for_backward({exp.div_(sum_exp.unsqueeze(1)), in_shard, index});
    ctx->saved_data["rows"] = shard.rows;
    ctx->saved_data["dtype"] = static_cast<std::int64_t>(logits.scalar_type());
    return loss;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const variable_list saved = ctx->get_saved_variables();
    const at::Tensor& softmax = saved[0];
    const at::Tensor& in_shard = saved[1];
    const at::Tensor& index = saved[2];
    // d loss_i / d logit_ij = softmax_ij − [j is label i], times the incoming gradient of loss_i.
    at::Tensor grad = softmax.clone();
    if (grad.size(1) > 0) {
      grad.scatter_add_(1, index.unsqueeze(1), in_shard.to(grad.scalar_type()).neg().unsqueeze(1));
    }
    grad.mul_(grads[0].to(grad.scalar_type()).unsqueeze(1));
    const std::int64_t padding = ctx->saved_data["rows"].toInt() - grad.size(1);
    if (padding > 0) {
      grad = at::constant_pad_nd(grad, {0, padding});
    }
    const auto dtype = static_cast<at::ScalarType>(ctx->saved_data["dtype"].toInt());
    return {grad.to(dtype), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor TensorParallelGroup::all_reduce(const at::Tensor& input, comm::ReduceOp op) const {
  if (comm_ == nullptr || comm_->size() == 1) {
    return input;
  }
  check_device(input, *comm_);
  const comm::DataType type = comm_type(input, *comm_);
  const at::Tensor send = input.contiguous();
  at::Tensor recv = at::empty_like(send);
  const auto count = static_cast<std::size_t>(send.numel());
  if (comm_->memory_space() == comm::MemorySpace::kHost) {
    comm_->all_reduce(send.data_ptr(), recv.data_ptr(), count, type, op).wait();
    return recv;
  }
#if CANZONA_TORCH_DEVICE_COLLECTIVES
  // Retire what has finished, so the queue stays short without waiting on the host.
  while (!in_flight_->empty() && in_flight_->front().test()) {
    in_flight_->pop_front();
  }
  in_flight_->push_back(detail::all_reduce_on_current_stream(*comm_, send, recv, type, op));
  return recv;
#else
  throw ConfigError(fmt::format(
      "tensor-parallel group '{}' holds CUDA tensors, but this build has no libtorch with CUDA "
      "and NCCL; configure against PyTorch's libtorch (see lib/torch_model/README.md)",
      comm_->name()));
#endif
}

at::Tensor copy_to_tensor_parallel(const at::Tensor& input, const TensorParallelGroup& group) {
  if (group.size() == 1) {
    return input;
  }
  return CopyToTensorParallel::apply(input, &group);
}

at::Tensor reduce_from_tensor_parallel(const at::Tensor& input, const TensorParallelGroup& group) {
  if (group.size() == 1) {
    return input;
  }
  return ReduceFromTensorParallel::apply(input, &group);
}

VocabShard vocab_shard(const model::ModelSpec& model, int tp, int rank) {
  const std::int64_t padded = layout::padded_vocab_size(model.vocab_size, tp);
  VocabShard shard;
  shard.rows = padded / tp;
  shard.start = shard.rows * rank;
  shard.valid = std::clamp<std::int64_t>(model.vocab_size - shard.start, 0, shard.rows);
  return shard;
}

at::Tensor vocab_parallel_embedding(const at::Tensor& tokens, const at::Tensor& weight,
                                    const VocabShard& shard, const TensorParallelGroup& group) {
  if (group.size() == 1) {
    return at::embedding(weight, tokens);
  }
  const at::Tensor outside = (tokens < shard.start) | (tokens >= shard.start + shard.rows);
  const at::Tensor local = (tokens - shard.start).masked_fill(outside, 0);
  const at::Tensor partial = at::embedding(weight, local).masked_fill(outside.unsqueeze(-1), 0);
  return reduce_from_tensor_parallel(partial, group);
}

at::Tensor vocab_parallel_cross_entropy(const at::Tensor& logits, const at::Tensor& labels,
                                        const VocabShard& shard, const TensorParallelGroup& group) {
  return VocabParallelCrossEntropy::apply(logits, labels, shard, &group);
}

}  // namespace canzona::torch_model
