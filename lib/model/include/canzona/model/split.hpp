// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Splitting Megatron's fused matrices (linear_qkv, linear_fc1) into the fragments the matrix
// optimizer treats as separate matrices, with the rows of the fused (or TP-gathered) weight each
// fragment owns, so executors can gather and de-interleave.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canzona/model/parameters.hpp"
#include "canzona/model/spec.hpp"

namespace canzona::model {

/// Which fused matrices to split (Canzona's --matrix-based-optimizer-split-* flags). Splits act on
/// the full (TP-reconstructed) matrix; each fragment gets its own optimizer state.
struct SplitOptions {
  bool qkv = false;           ///< linear_qkv -> q [H·d, h], k [K·d, h], v [K·d, h]
  bool qkv_per_head = false;  ///< with qkv: one [d, h] fragment per q head, k group, v group
  bool fc1 = false;           ///< linear_fc1 (dense and expert) -> gate [I, h], up [I, h]
};

/// Throws ConfigError for contradictory options (qkv_per_head without qkv).
void validate(const SplitOptions& options);

/// Half-open row interval [begin, end) of a matrix.
struct RowRange {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t size() const { return end - begin; }
  friend bool operator==(const RowRange&, const RowRange&) = default;
};

enum class FragmentKind { kWhole, kQuery, kKey, kValue, kGate, kUp };

/// "whole", "query", "key", "value", "gate", "up".
std::string_view to_string(FragmentKind kind);

/// A matrix the optimizer updates on its own: a whole parameter or a piece of a fused one.
struct Fragment {
  std::string name;  ///< parameter name plus a suffix: ".q", ".k.group3", ".q.head17", ".gate"
  FragmentKind kind = FragmentKind::kWhole;
  int index = -1;                   ///< q head or kv group of a per-head fragment, else -1
  std::vector<std::int64_t> shape;  ///< [rows, cols] as the optimizer sees it
  /// Rows of the source matrix, in the fragment's row order; gathering them in this order gives
  /// the fragment. Adjacent ranges are merged. Sizes sum to shape[0].
  std::vector<RowRange> rows;

  std::int64_t numel() const;
  /// One row range: contiguous in its source matrix, so an optimizer can step it where it lies.
  /// Any other fragment is staged (copied out and back) by whoever steps it.
  bool contiguous() const { return rows.size() == 1; }
};

/// Fragments of a matrix-optimizer parameter under `options`. Parameters the options do not split
/// give one kWhole fragment. `tp` says which matrix the row ranges refer to: the TP-gathered one,
/// i.e. the row-concatenation of the `tp` column-parallel shards (tp = 1: the full matrix).
/// Throws ConfigError when the parameter does not use the matrix optimizer (it has no fragments),
/// or when a split is impossible (see split_qkv, split_fc1).
std::vector<Fragment> split_parameter(const ParamSpec& param, const ModelSpec& model,
                                      const SplitOptions& options, int tp = 1);

/// Splits a Megatron linear_qkv. Megatron groups its rows per KV group,
/// [K, (H/K + 2)·d, h] = [q heads of group 0, k0, v0, q heads of group 1, k1, v1, …], and a
/// column-parallel TP shard holds K/tp whole groups, so the TP-gathered matrix has exactly the
/// full matrix's row order for every valid tp (the de-interleave is per group, not per rank).
/// per_head = false: q, k, v; per_head = true: H q heads (global head order, group-major), then
/// K k groups, then K v groups, each [d, h].
/// ConfigError when `param` is not a fused qkv (e.g. a per-head split of an MLP weight or of an
/// HF q_proj), its shape disagrees with `model`, or tp does not divide num_kv_heads.
std::vector<Fragment> split_qkv(const ParamSpec& param, const ModelSpec& model, bool per_head,
                                int tp = 1);

/// Splits a Megatron linear_fc1 (dense or expert) into gate and up. Full matrix: [gate; up]. A
/// column-parallel shard r holds [gate_r; up_r] (gate and up are sharded separately), so the
/// TP-gathered matrix is [gate_0; up_0; gate_1; up_1; …] and each fragment has `tp` row ranges.
/// ConfigError when `param` is not a gated fc1, or tp does not divide its ffn size.
std::vector<Fragment> split_fc1(const ParamSpec& param, const ModelSpec& model, int tp = 1);

/// All fragments of all matrix-optimizer parameters of `params`, in parameter order.
std::vector<Fragment> matrix_fragments(const std::vector<ParamSpec>& params, const ModelSpec& model,
                                       const SplitOptions& options, int tp = 1);

}  // namespace canzona::model
