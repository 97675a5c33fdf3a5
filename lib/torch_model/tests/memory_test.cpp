// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Run-shape and TP validation and the memory estimate of the libtorch model (no libtorch here).
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/testing/tiny_model.hpp>
#include <canzona/torch_model/memory.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace {

namespace tm = canzona::torch_model;
using canzona::ConfigError;

std::string message_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no ConfigError>";
}

TEST(TorchModelMemoryTest, ParameterBytesAreTheTpLocalShapes) {
  // Qwen3-32B at tp 8, bf16, from the published per-rank shard shapes.
  const auto& spec = canzona::model::find_model("qwen3-32b");
  const std::int64_t layer =
      1280LL * 5120 + 5120LL * 1024 + 6400LL * 5120 + 5120LL * 3200 + 2 * 5120 + 2 * 128;
  const std::int64_t vocab = 2 * 19072LL * 5120;
  const tm::MemoryEstimate estimate =
      tm::estimate_memory(spec, 8, {1, 4096}, 2, /*fused_attention=*/true);
  EXPECT_EQ(estimate.parameter_bytes, 2 * (64 * layer + vocab + 5120));
  EXPECT_EQ(estimate.gradient_bytes, estimate.parameter_bytes);
}

TEST(TorchModelMemoryTest, ActivationsScaleWithTokensAndAttentionKind) {
  const auto& spec = canzona::model::find_model("qwen3-1.7b");
  const auto activations = [&](std::int64_t mbs, std::int64_t seq, bool fused) {
    return tm::estimate_memory(spec, 1, {mbs, seq}, 4, fused).activation_bytes;
  };
  EXPECT_EQ(activations(2, 512, true), 2 * activations(1, 512, true));
  EXPECT_EQ(activations(1, 1024, true), 2 * activations(1, 512, true));
  // The plain formulation keeps s x s scores per head: quadratic in the sequence.
  EXPECT_GT(activations(1, 1024, false), 2 * activations(1, 512, false));
  EXPECT_GT(activations(1, 512, false), activations(1, 512, true));
  // More TP ranks hold less of everything.
  EXPECT_LT(tm::estimate_memory(spec, 4, {1, 512}, 4, true).total(),
            tm::estimate_memory(spec, 2, {1, 512}, 4, true).total());
}

TEST(TorchModelMemoryTest, CheckFitsNamesTheNeedAndTheWaysOut) {
  const auto spec = canzona::testing::tiny_dense_model();
  const tm::MemoryEstimate estimate = tm::estimate_memory(spec, 1, {2, 16}, 4, false);
  EXPECT_NO_THROW(tm::check_fits(estimate, estimate.total(), spec, 1, {2, 16}, "cpu"));
  const std::string message = message_of([&] {
    tm::check_fits(estimate, estimate.total() - 1, spec, 1, {2, 16}, "cpu");
  });
  EXPECT_NE(message.find("GiB are available"), std::string::npos) << message;
  EXPECT_NE(message.find("more TP ranks"), std::string::npos) << message;
  EXPECT_GT(tm::available_host_bytes(), 0);
}

TEST(TorchModelMemoryTest, RunShapeMustBeNonEmptyAndWithinThePositions) {
  const auto spec = canzona::testing::tiny_dense_model();
  EXPECT_NO_THROW(tm::validate(tm::RunShape{1, spec.max_position_embeddings}, spec));
  EXPECT_NE(message_of([&] {
              tm::validate(tm::RunShape{0, 16}, spec);
            }).find("micro-batch"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              tm::validate(tm::RunShape{1, 0}, spec);
            }).find("sequence length"),
            std::string::npos);
  EXPECT_THROW(tm::validate(tm::RunShape{1, spec.max_position_embeddings + 1}, spec), ConfigError);
}

TEST(TorchModelMemoryTest, TpMustDivideTheHeads) {
  const auto spec = canzona::testing::tiny_dense_model();  // 8 heads, 4 KV heads, ffn 96
  EXPECT_NO_THROW(tm::validate_tp(spec, 4));
  EXPECT_NE(message_of([&] { tm::validate_tp(spec, 3); }).find("num_attention_heads"),
            std::string::npos);
  EXPECT_NE(message_of([&] { tm::validate_tp(spec, 8); }).find("num_key_value_heads"),
            std::string::npos);
  // No node limit for the model itself: tp 16 fails on the heads, not on gpus_per_node.
  EXPECT_EQ(message_of([&] { tm::validate_tp(spec, 16); }).find("gpus_per_node"),
            std::string::npos);
}

}  // namespace
