// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The matrix shapes a matrix optimizer sees on Qwen3: every distinct [rows, cols] of the dense
// models' matrix parameters, fused (Megatron linear_qkv, linear_fc1) and split (q/k/v,
// per-head, gate/up), full (TP-gathered) shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace canzona::bench {

struct KernelShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::string first_use;  ///< where the shape first appears, e.g. "qwen3-8b linear_fc1"
  int uses = 0;           ///< fragments of this shape over all the listed models
};

/// Distinct shapes of Qwen3-0.6B … 32B in catalog order of first appearance.
std::vector<KernelShape> qwen3_kernel_shapes();

}  // namespace canzona::bench
