// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shared by the libtorch model tests: tiny Qwen3-shaped models (dense, tied, padded vocabulary,
// MoE), random batches, the test initialisation and a communicator double for shape-only runs.
#pragma once

#include <canzona/comm/communicator.hpp>
#include <canzona/core/error.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/testing/tiny_model.hpp>
#include <canzona/torch_model/parameters.hpp>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace canzona::torch_model::testing {

/// Tiny models covering every code path: untied head, tied embedding, a vocabulary that is not
/// a multiple of 128·tp (padding rows on the last ranks), and MoE layers. Valid for tp 1, 2, 4.
enum class TinyKind { kDense, kTied, kPaddedVocab, kMoe };

inline const char* to_string(TinyKind kind) {
  switch (kind) {
    case TinyKind::kDense:
      return "dense";
    case TinyKind::kTied:
      return "tied";
    case TinyKind::kPaddedVocab:
      return "padded_vocab";
    case TinyKind::kMoe:
      return "moe";
  }
  return "unknown";
}

/// Every TinyKind, for INSTANTIATE_TEST_SUITE_P, and the test-name generator that goes with it.
inline auto all_tiny_kinds() {
  return ::testing::Values(TinyKind::kDense, TinyKind::kTied, TinyKind::kPaddedVocab,
                           TinyKind::kMoe);
}
inline std::string tiny_kind_name(const ::testing::TestParamInfo<TinyKind>& param) {
  return to_string(param.param);
}

inline model::ModelSpec tiny_model(TinyKind kind) {
  canzona::testing::TinyDense shape;
  shape.tied = kind == TinyKind::kTied;
  if (kind == TinyKind::kPaddedVocab) {
    // Padded to 384 rows at tp 1; tp 2: 2 x 256, rank 1 holds 44 tokens; tp 4: 4 x 128, rank 2
    // holds 44 and rank 3 none.
    shape.vocab = 300;
  }
  model::ModelSpec spec =
      canzona::testing::tiny_dense_model(shape, std::string("tiny-") + to_string(kind));
  spec.rope_theta = 10000.0;  // short sequences: a small theta makes every RoPE frequency turn
  if (kind == TinyKind::kMoe) {
    spec.num_experts = 6;
    spec.moe_intermediate_size = 32;
    spec.experts_per_token = 2;
  }
  return spec;
}

/// Large enough that attention, norms and the softmax are far from their trivial regimes.
inline InitOptions test_init(std::uint64_t seed) {
  InitOptions init;
  init.seed = seed;
  init.std = 0.25;
  init.norm_std = 0.1;
  return init;
}

struct Batch {
  at::Tensor tokens;  ///< [b, s] int64 on the CPU
  at::Tensor labels;  ///< the next tokens
};

/// b random sequences of s + 1 ids; tokens are the first s, labels the last s.
inline Batch random_batch(const model::ModelSpec& spec, std::int64_t b, std::int64_t s,
                          std::uint64_t seed) {
  at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  const at::Tensor ids =
      at::randint(spec.vocab_size, {b, s + 1}, generator, at::TensorOptions().dtype(at::kLong));
  return {ids.narrow(1, 0, s).contiguous(), ids.narrow(1, 1, s).contiguous()};
}

/// The gradient of a parameter after backward; zeros where autograd left none (an expert that no
/// token was routed to takes no part in the graph).
inline at::Tensor grad_or_zeros(const at::Tensor& param) {
  return param.grad().defined() ? param.grad() : at::zeros_like(param);
}

/// ||a − b|| / ||b|| (∞-safe: 0 when both are zero).
inline double relative_error(const at::Tensor& a, const at::Tensor& b) {
  const double reference = b.to(at::kDouble).norm().item<double>();
  const double difference = (a.to(at::kDouble) - b.to(at::kDouble)).norm().item<double>();
  return reference == 0 ? difference : difference / reference;
}

/// A host communicator of any size that runs nothing: all-reduce copies the send buffer (as if
/// every rank contributed the same values to a max), every other collective throws. Lets
/// single-process tests build TP shards on the meta device and exercise start-up checks.
class ShapeOnlyCommunicator final : public comm::Communicator {
 public:
  ShapeOnlyCommunicator(int rank, int size) : Communicator(rank, size, "shape-only") {}
  comm::MemorySpace memory_space() const noexcept override { return comm::MemorySpace::kHost; }
  std::string_view backend() const noexcept override { return "none"; }

 protected:
  std::unique_ptr<Communicator> do_split(int, int, std::string) override { unsupported(); }
  comm::Request do_all_reduce(const void* send, void* recv, std::size_t count, comm::DataType type,
                              comm::ReduceOp) override {
    std::memmove(recv, send, count * comm::size_of(type));
    return comm::Request();
  }
  comm::Request do_reduce_scatter(const void*, void*, std::span<const std::size_t>,
                                  std::span<const std::size_t>, comm::DataType,
                                  comm::ReduceOp) override {
    unsupported();
  }
  comm::Request do_all_gather(const void*, void*, std::span<const std::size_t>,
                              std::span<const std::size_t>, comm::DataType) override {
    unsupported();
  }
  comm::Request do_all_to_all(const void*, std::span<const std::size_t>,
                              std::span<const std::size_t>, void*, std::span<const std::size_t>,
                              std::span<const std::size_t>, comm::DataType) override {
    unsupported();
  }
  comm::Request do_broadcast(void*, std::size_t, comm::DataType, int) override { unsupported(); }
  comm::Request do_reduce(const void*, void*, std::size_t, comm::DataType, comm::ReduceOp,
                          int) override {
    unsupported();
  }
  comm::Request do_gather(const void*, std::size_t, void*, std::span<const std::size_t>,
                          std::span<const std::size_t>, comm::DataType, int) override {
    unsupported();
  }
  comm::Request do_scatter(const void*, std::span<const std::size_t>, std::span<const std::size_t>,
                           void*, std::size_t, comm::DataType, int) override {
    unsupported();
  }
  comm::Request do_barrier() override { unsupported(); }

 private:
  [[noreturn]] static void unsupported() {
    throw Error("ShapeOnlyCommunicator runs no collective but all-reduce");
  }
};

}  // namespace canzona::torch_model::testing
