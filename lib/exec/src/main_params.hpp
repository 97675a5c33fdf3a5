// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The fp32 main parameters and main gradients of what this rank steps (internal), as Megatron's
// mixed-precision optimizers keep them: one range per contiguous part of a buffer the rank owns
// (its slice of each bucket under ZeRO-1, each entry it owns under layer-wise, every bucket when
// it steps everything, as DP-SC does). With fp32 model parameters the main parameters ARE the
// model parameters (no copy); with fp32 gradients the main gradients are the gradient buffer.
#pragma once

#include <canzona/backend/backend.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "step_context.hpp"

namespace canzona::exec::detail {

/// One contiguous part of a buffer this rank steps.
struct OwnedRange {
  std::size_t buffer = 0;
  std::int64_t begin = 0;  ///< buffer elements [begin, end)
  std::int64_t end = 0;
  float* param = nullptr;  ///< fp32 main parameters of [begin, end)
  float* grad = nullptr;   ///< fp32 main gradients of [begin, end)
};

class MainParams {
 public:
  /// Resolves the owned ranges of every buffer and allocates the main copies the precision
  /// needs (none for fp32 parameters and fp32 gradients).
  explicit MainParams(StepContext& ctx);

  std::span<const OwnedRange> ranges() const { return ranges_; }
  /// The ranges of one buffer, in buffer order.
  std::span<const OwnedRange> ranges(std::size_t buffer) const;

  /// The main parameter / gradient of buffer element `element`; canzona::Error unless this
  /// rank owns it.
  float* param(std::size_t buffer, std::int64_t element) const;
  float* grad(std::size_t buffer, std::int64_t element) const;

  /// Main parameters ← model parameters (Megatron builds them from the model when the optimizer
  /// is made). No-op for fp32 parameters.
  void load() const;
  /// Main gradients ← the reduced gradients. No-op for fp32 gradients.
  void import_grads() const;
  /// Model parameters ← main parameters, rounded to the model type, before the parameter sync.
  /// No-op for fp32 parameters.
  void publish() const;

 private:
  void add(std::size_t buffer, std::int64_t begin, std::int64_t end);
  const OwnedRange& find(std::size_t buffer, std::int64_t element) const;

  StepContext& ctx_;
  bool copies_params_ = false;
  bool copies_grads_ = false;
  std::vector<OwnedRange> ranges_;
  std::vector<std::size_t> first_;  ///< per buffer (+1): index of its first range
  std::vector<backend::Buffer> storage_;
};

}  // namespace canzona::exec::detail
