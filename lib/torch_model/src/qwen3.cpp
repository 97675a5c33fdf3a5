// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The libtorch Qwen3 decoder: construction checks, parameter bookkeeping and the forward pass.
#include "canzona/torch_model/qwen3.hpp"

#include <canzona/core/error.hpp>
#include <canzona/layout/tp_shapes.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>
#include <map>
#include <string>

#include "canzona/torch_model/compat.hpp"

namespace canzona::torch_model {
namespace {

// Device and dtype checks whose outcome is the same on every rank (they read only the options
// and the communicator's kind), so they need no agreement.
void check_placement(const ModelOptions& options, at::ScalarType dtype,
                     const TensorParallelGroup& group) {
  const at::Device device = options.device;
  if (!device.is_cpu() && !device.is_cuda() && !device.is_meta()) {
    throw ConfigError(
        fmt::format("device '{}' is not supported: use cpu, cuda or meta", device.str()));
  }
  if (dtype != at::kFloat && dtype != at::kBFloat16 && dtype != at::kDouble) {
    throw ConfigError(fmt::format("dtype {} is not supported: use float32, bfloat16 or float64",
                                  c10::toString(dtype)));
  }
  const comm::Communicator* comm = group.communicator();
  if (comm == nullptr || comm->size() == 1 || device.is_meta()) {
    return;
  }
  const bool host = comm->memory_space() == comm::MemorySpace::kHost;
  if (host != device.is_cpu()) {
    throw ConfigError(fmt::format(
        "a model on {} cannot run over the {} communicator '{}', whose buffers live in {} "
        "memory: run CPU models over MPI and CUDA models over NCCL",
        device.str(), comm->backend(), comm->name(), host ? "host" : "device"));
  }
}

// Every rank learns whether any rank failed its checks; the failing rank rethrows its own error,
// the others name it, so no rank goes on to wait in a collective its peers never join.
void agree(const TensorParallelGroup& group, at::Device device, std::exception_ptr failure) {
  if (group.size() > 1) {
    const at::Tensor mine = at::full({1}, failure ? group.rank() : -1,
                                     at::TensorOptions().dtype(at::kLong).device(device));
    const std::int64_t failed = group.all_reduce(mine, comm::ReduceOp::kMax).item<std::int64_t>();
    if (failed >= 0 && !failure) {
      throw ConfigError(fmt::format(
          "TP rank {} of {} could not build the model (its error is printed there); every rank "
          "stops",
          failed, group.size()));
    }
  }
  if (failure) {
    std::rethrow_exception(failure);
  }
}

std::int64_t available_bytes(const ModelOptions& options) {
  if (options.memory_limit_bytes > 0) {
    return options.memory_limit_bytes;
  }
  if (options.device.is_cuda()) {
    return available_cuda_bytes(options.device.has_index() ? options.device.index() : 0);
  }
  return available_host_bytes();
}

// Rotates the two halves of every head: x [b, s, n, d], cos and sin [s, d/2] (HF rotate_half).
at::Tensor apply_rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const std::int64_t half = x.size(3) / 2;
  const at::Tensor c = cos.view({1, x.size(1), 1, half});
  const at::Tensor s = sin.view({1, x.size(1), 1, half});
  const at::Tensor x1 = x.narrow(3, 0, half);
  const at::Tensor x2 = x.narrow(3, half, half);
  return at::cat({x1 * c - x2 * s, x2 * c + x1 * s}, 3);
}

}  // namespace

Qwen3Model::Qwen3Model(model::ModelSpec spec, TensorParallelGroup group, ModelOptions options)
    : spec_(std::move(spec)),
      group_(std::move(group)),
      device_(options.device),
      dtype_(options.dtype.value_or(options.device.is_cuda() ? at::kBFloat16 : at::kFloat)),
      shape_(options.shape) {
  const int tp = group_.size();
  check_placement(options, dtype_, group_);
  std::exception_ptr failure;
  try {
    validate_tp(spec_, tp);
    validate(shape_, spec_);
    const MemoryEstimate memory = estimate_memory(
        spec_, tp, shape_, static_cast<int>(c10::elementSize(dtype_)), compat::kFusedAttention);
    if (!device_.is_meta()) {
      check_fits(memory, available_bytes(options), spec_, tp, shape_, device_.str());
    }
  } catch (...) {
    failure = std::current_exception();
  }
  if (device_.is_meta()) {
    if (failure) {
      std::rethrow_exception(failure);
    }
  } else {
    agree(group_, device_, failure);
  }

  vocab_ = torch_model::vocab_shard(spec_, tp, group_.rank());
  specs_ = model::parameters(spec_, model::ParamLayout::kMegatron);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    index.emplace(specs_[i].name, i);
  }
  const auto at = [&](const std::string& name) {
    const auto it = index.find(name);
    CANZONA_CHECK(it != index.end(), "model::parameters has no '" + name + "'");
    return it->second;
  };
  embedding_ = at("embedding.word_embeddings.weight");
  final_norm_ = at("decoder.final_layernorm.weight");
  head_ = spec_.tie_word_embeddings ? embedding_ : at("output_layer.weight");
  for (std::int64_t i = 0; i < spec_.num_layers; ++i) {
    const std::string pre = fmt::format("decoder.layers.{}.", i);
    Layer layer;
    layer.proj = at(pre + "self_attention.linear_proj.weight");
    layer.attention_norm = at(pre + "self_attention.linear_qkv.layer_norm_weight");
    layer.qkv = at(pre + "self_attention.linear_qkv.weight");
    layer.q_norm = at(pre + "self_attention.q_layernorm.weight");
    layer.k_norm = at(pre + "self_attention.k_layernorm.weight");
    if (spec_.is_moe()) {
      layer.mlp_norm = at(pre + "pre_mlp_layernorm.weight");
      layer.router = at(pre + "mlp.router.weight");
      for (std::int64_t e = 0; e < spec_.num_experts; ++e) {
        layer.expert_fc1.push_back(at(fmt::format("{}mlp.experts.linear_fc1.weight{}", pre, e)));
        layer.expert_fc2.push_back(at(fmt::format("{}mlp.experts.linear_fc2.weight{}", pre, e)));
      }
    } else {
      layer.mlp_norm = at(pre + "mlp.linear_fc1.layer_norm_weight");
      layer.fc1 = at(pre + "mlp.linear_fc1.weight");
      layer.fc2 = at(pre + "mlp.linear_fc2.weight");
    }
    layers_.push_back(std::move(layer));
  }

  const at::TensorOptions tensor_options = at::TensorOptions().dtype(dtype_).device(device_);
  params_.reserve(specs_.size());
  for (const model::ParamSpec& param : specs_) {
    params_.push_back(
        at::zeros(layout::tp_local_shape(param, spec_, tp), tensor_options).requires_grad_(true));
  }
}

void Qwen3Model::init_parameters(const InitOptions& options) {
  const at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const at::Tensor full = full_parameter(specs_, i, spec_, options);
    params_[i].copy_(tp_shard(full, specs_[i], spec_, group_.size(), group_.rank()));
  }
}

void Qwen3Model::bind_parameters(const std::vector<at::Tensor>& storage) {
  if (storage.size() != params_.size()) {
    throw ConfigError(fmt::format("bind_parameters: {} tensors for the {} parameters of {}",
                                  storage.size(), params_.size(), spec_.name));
  }
  for (std::size_t i = 0; i < storage.size(); ++i) {
    const at::Tensor& t = storage[i];
    if (!t.defined() || t.sizes() != params_[i].sizes() || t.device() != device_ ||
        t.scalar_type() != dtype_) {
      throw ConfigError(
          fmt::format("bind_parameters: storage for '{}' must be a {} tensor of shape [{}] on {}",
                      specs_[i].name, c10::toString(dtype_), fmt::join(params_[i].sizes(), ", "),
                      device_.str()));
    }
  }
  const at::NoGradGuard no_grad;
  for (std::size_t i = 0; i < storage.size(); ++i) {
    storage[i].copy_(params_[i]);
    // detach(): a leaf of its own that still shares the storage's memory, so writes into the
    // buffer (the optimizer, the parameter all-gather) are what the next forward sees.
    params_[i] = storage[i].detach().requires_grad_(true);
  }
}

void Qwen3Model::check_inputs(const at::Tensor& tokens, const at::Tensor& labels) const {
  if (!tokens.defined() || !labels.defined() || tokens.dim() != 2 ||
      tokens.sizes() != labels.sizes()) {
    throw ConfigError("forward needs tokens and labels of the same shape [micro_batch, seq_len]");
  }
  if (tokens.scalar_type() != at::kLong || labels.scalar_type() != at::kLong ||
      tokens.device() != device_ || labels.device() != device_) {
    throw ConfigError(fmt::format("forward needs int64 tokens and labels on {}", device_.str()));
  }
  const std::int64_t b = tokens.size(0);
  const std::int64_t s = tokens.size(1);
  if (b < 1 || s < 1) {
    throw ConfigError(fmt::format(
        "forward got micro-batch {} x sequence length {}: both must be at least 1", b, s));
  }
  if (b > shape_.micro_batch || s > shape_.seq_len) {
    throw ConfigError(fmt::format(
        "forward got micro-batch {} x sequence length {}, beyond the {} x {} this model was built "
        "and memory-checked for; build it with a larger ModelOptions::shape",
        b, s, shape_.micro_batch, shape_.seq_len));
  }
  const std::int64_t low =
      std::min(tokens.min().item<std::int64_t>(), labels.min().item<std::int64_t>());
  const std::int64_t high =
      std::max(tokens.max().item<std::int64_t>(), labels.max().item<std::int64_t>());
  if (low < 0 || high >= spec_.vocab_size) {
    throw ConfigError(fmt::format("token ids must be in [0, {}) for {}, got ids in [{}, {}]",
                                  spec_.vocab_size, spec_.name, low, high));
  }
}

at::Tensor Qwen3Model::rms_norm(const at::Tensor& x, const at::Tensor& weight) const {
  const at::ScalarType type = x.scalar_type();
  const at::Tensor wide = type == at::kDouble ? x : x.to(at::kFloat);
  const at::Tensor normed = wide * at::rsqrt(wide.pow(2).mean(-1, true) + spec_.rms_norm_eps);
  return weight * normed.to(type);
}

at::Tensor Qwen3Model::rms_norm(const at::Tensor& x, std::size_t weight) const {
  return rms_norm(x, params_[weight]);
}

at::Tensor Qwen3Model::attention(const at::Tensor& x, const Layer& layer, const at::Tensor& cos,
                                 const at::Tensor& sin) const {
  const std::int64_t b = x.size(0);
  const std::int64_t s = x.size(1);
  const std::int64_t groups = spec_.num_kv_heads / group_.size();
  const std::int64_t per_group = spec_.heads_per_group();
  const std::int64_t d = spec_.head_dim;
  const at::Tensor input = copy_to_tensor_parallel(rms_norm(x, layer.attention_norm), group_);
  // Megatron's linear_qkv rows: per KV group, its query heads, then its key, then its value.
  const at::Tensor qkv =
      at::linear(input, params_[layer.qkv]).view({b, s, groups, per_group + 2, d});
  at::Tensor q = qkv.narrow(3, 0, per_group).reshape({b, s, groups * per_group, d});
  at::Tensor k = qkv.select(3, per_group);
  const at::Tensor v = qkv.select(3, per_group + 1);
  // The QK-norm weights are replicated but see only this rank's heads: their gradient is a
  // partial sum over the TP group (Megatron all-reduces it in finalize_model_grads; here the
  // weight enters through copy-to-TP, which all-reduces it in backward).
  q = apply_rope(rms_norm(q, copy_to_tensor_parallel(params_[layer.q_norm], group_)), cos, sin);
  k = apply_rope(rms_norm(k, copy_to_tensor_parallel(params_[layer.k_norm], group_)), cos, sin);
  const at::Tensor heads =
      compat::causal_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2));
  const at::Tensor merged = heads.transpose(1, 2).reshape({b, s, groups * per_group * d});
  return reduce_from_tensor_parallel(at::linear(merged, params_[layer.proj]), group_);
}

at::Tensor Qwen3Model::swiglu(const at::Tensor& x, std::size_t fc1, std::size_t fc2) const {
  const at::Tensor gate_up = at::linear(x, params_[fc1]);
  const std::int64_t width = gate_up.size(-1) / 2;
  return at::linear(at::silu(gate_up.narrow(-1, 0, width)) * gate_up.narrow(-1, width, width),
                    params_[fc2]);
}

at::Tensor Qwen3Model::dense_mlp(const at::Tensor& x, const Layer& layer) const {
  const at::Tensor input = copy_to_tensor_parallel(rms_norm(x, layer.mlp_norm), group_);
  return reduce_from_tensor_parallel(swiglu(input, layer.fc1, layer.fc2), group_);
}

at::Tensor Qwen3Model::moe_mlp(const at::Tensor& x, const Layer& layer) const {
  const std::int64_t hidden = spec_.hidden_size;
  const std::int64_t top_k = spec_.experts_per_token;
  const at::Tensor normed = rms_norm(x, layer.mlp_norm).reshape({-1, hidden});
  // The router runs replicated on every TP rank (same input, same choice); only its weights
  // cross into the TP region, where the partial expert outputs complete their gradient.
  const at::ScalarType wide = dtype_ == at::kDouble ? at::kDouble : at::ScalarType::Float;
  const at::Tensor probs = at::softmax(at::linear(normed, params_[layer.router]).to(wide), -1);
  const auto [top_probs, top_experts] = probs.topk(top_k, -1);
  const at::Tensor weights = copy_to_tensor_parallel(
      (top_probs / top_probs.sum(-1, true)).to(dtype_).reshape({-1}), group_);
  const at::Tensor input = copy_to_tensor_parallel(normed, group_);

  // Token-slot pairs grouped by expert; slot i belongs to token i / top_k.
  const at::Tensor experts = top_experts.reshape({-1});
  const at::Tensor order = std::get<1>(experts.sort(/*stable=*/true, 0, /*descending=*/false));
  const at::Tensor counts = at::bincount(experts, {}, spec_.num_experts).cpu();
  const auto* count = counts.data_ptr<std::int64_t>();
  std::vector<at::Tensor> outputs;
  std::vector<at::Tensor> rows;
  std::int64_t offset = 0;
  for (std::int64_t e = 0; e < spec_.num_experts; ++e) {
    if (count[e] == 0) {
      continue;
    }
    const at::Tensor slots = order.narrow(0, offset, count[e]);
    const at::Tensor tokens = at::div(slots, top_k, "floor");
    const auto expert = static_cast<std::size_t>(e);
    outputs.push_back(
        swiglu(input.index_select(0, tokens), layer.expert_fc1[expert], layer.expert_fc2[expert]) *
        weights.index_select(0, slots).unsqueeze(1));
    rows.push_back(tokens);
    offset += count[e];
  }
  const at::Tensor combined = at::zeros_like(normed).index_add(0, at::cat(rows), at::cat(outputs));
  return reduce_from_tensor_parallel(combined, group_).view_as(x);
}

ForwardOutput Qwen3Model::forward(const at::Tensor& tokens, const at::Tensor& labels) const {
  check_inputs(tokens, labels);
  const std::int64_t b = tokens.size(0);
  const std::int64_t s = tokens.size(1);
  // RoPE angles in fp64, then the compute dtype: position p, frequency theta^(-2i/d).
  const std::int64_t half = spec_.head_dim / 2;
  const at::TensorOptions wide = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor frequencies = at::pow(
      spec_.rope_theta, at::arange(0, half, wide) * (-2.0 / static_cast<double>(spec_.head_dim)));
  const at::Tensor angles = at::outer(at::arange(0, s, wide), frequencies);
  const at::Tensor cos = angles.cos().to(device_, dtype_);
  const at::Tensor sin = angles.sin().to(device_, dtype_);

  at::Tensor x = vocab_parallel_embedding(tokens, params_[embedding_], vocab_, group_);
  for (const Layer& layer : layers_) {
    x = x + attention(x, layer, cos, sin);
    x = x + (spec_.is_moe() ? moe_mlp(x, layer) : dense_mlp(x, layer));
  }
  const at::Tensor final_input = copy_to_tensor_parallel(rms_norm(x, final_norm_), group_);
  const at::Tensor logits = at::linear(final_input, params_[head_]);
  const at::Tensor per_token = vocab_parallel_cross_entropy(
      logits.reshape({b * s, vocab_.rows}), labels.reshape({b * s}), vocab_, group_);
  return {logits, per_token.mean()};
}

}  // namespace canzona::torch_model
