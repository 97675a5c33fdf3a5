// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// What a run of the libtorch Qwen3 model needs before anything is allocated: the input shape it
// will run, checked against the model, and the memory it will take, checked against what the
// device has. Host-clean: no libtorch types, so the checks are testable and cheap to compile.
#pragma once

#include <canzona/model/spec.hpp>

#include <cstdint>
#include <string>

namespace canzona::torch_model {

/// The largest input a model instance runs: micro_batch sequences of seq_len tokens.
struct RunShape {
  std::int64_t micro_batch = 1;
  std::int64_t seq_len = 128;
};

/// Throws ConfigError unless micro_batch >= 1 and 1 <= seq_len <= max_position_embeddings
/// (RoPE is defined, and the model was trained, only up to that length).
void validate(const RunShape& shape, const model::ModelSpec& model);

/// Throws ConfigError unless `tp` shards the model evenly (layout::validate: heads, KV heads,
/// intermediate sizes), naming the dimension and the valid values.
void validate_tp(const model::ModelSpec& model, int tp);

/// Bytes one TP rank needs for a forward and backward pass.
struct MemoryEstimate {
  std::int64_t parameter_bytes = 0;   ///< TP-local parameters in the compute dtype
  std::int64_t gradient_bytes = 0;    ///< their gradients (same dtype)
  std::int64_t activation_bytes = 0;  ///< tensors autograd keeps for backward, logits included
  std::int64_t total() const { return parameter_bytes + gradient_bytes + activation_bytes; }
};

/// Estimate for one TP rank of `model` at `tp` running `shape` with `element_bytes` per
/// element (4 fp32, 2 bf16, 8 fp64). Parameters and gradients are exact (TP-local shapes,
/// padded vocab); activations are an estimate of what the implementation saves for backward
/// per token and layer: about 8·h + 4·(H + 2K)·d / tp + 5·I / tp elements (MoE: the router and
/// k experts' share instead of the dense MLP), plus 2·(H / tp)·s attention scores per token for
/// the plain (unfused) attention, plus three fp32 copies of the local logits. Good to a small
/// factor, which is what a "does not fit" message needs.
MemoryEstimate estimate_memory(const model::ModelSpec& model, int tp, const RunShape& shape,
                               int element_bytes, bool fused_attention);

/// Memory the host can give a new allocation now (MemAvailable of /proc/meminfo), in bytes.
std::int64_t available_host_bytes();

/// Free memory of CUDA device `device` (cudaMemGetInfo); 0 in a build without CUDA.
std::int64_t available_cuda_bytes(int device);

/// Throws ConfigError when `estimate` exceeds `available_bytes`, with the breakdown in GiB and
/// the ways out (more TP ranks, a smaller micro-batch or sequence, a smaller model, a device
/// with more memory). `where` names the device ("cpu", "cuda:0").
void check_fits(const MemoryEstimate& estimate, std::int64_t available_bytes,
                const model::ModelSpec& model, int tp, const RunShape& shape,
                const std::string& where);

}  // namespace canzona::torch_model
