// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Row bookkeeping of fused-matrix splits. All ranges are computed shard by shard, the way a
// TP-gathered weight is assembled, so the same code serves tp = 1 and tp > 1.
#include "canzona/model/split.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::model {

std::int64_t Fragment::numel() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    n *= d;
  }
  return n;
}

std::string_view to_string(FragmentKind kind) {
  switch (kind) {
    case FragmentKind::kWhole:
      return "whole";
    case FragmentKind::kQuery:
      return "query";
    case FragmentKind::kKey:
      return "key";
    case FragmentKind::kValue:
      return "value";
    case FragmentKind::kGate:
      return "gate";
    case FragmentKind::kUp:
      return "up";
  }
  return "unknown";
}

void validate(const SplitOptions& options) {
  if (options.qkv_per_head && !options.qkv) {
    throw ConfigError(
        "split options: qkv_per_head needs qkv (the per-head split refines the q/k/v split); "
        "enable both");
  }
}

namespace {

// Appends [begin, end), merging with the previous range when adjacent.
void append(std::vector<RowRange>& rows, std::int64_t begin, std::int64_t end) {
  if (!rows.empty() && rows.back().end == begin) {
    rows.back().end = end;
    return;
  }
  rows.push_back({begin, end});
}

Fragment make(const ParamSpec& param, std::string suffix, FragmentKind kind, int index) {
  Fragment f;
  f.name = param.name + suffix;
  f.kind = kind;
  f.index = index;
  f.shape = {0, param.shape.at(1)};
  return f;
}

void finish(Fragment& f) {
  std::int64_t rows = 0;
  for (const RowRange& r : f.rows) {
    rows += r.size();
  }
  f.shape[0] = rows;
}

void check_tp(int tp, std::int64_t divides, const ParamSpec& param, std::string_view what) {
  if (tp < 1 || divides % tp != 0) {
    throw ConfigError(fmt::format(
        "cannot split '{}' for tp={}: tp must be >= 1 and divide {} ({}); pick a tp that divides "
        "it",
        param.name, tp, what, divides));
  }
}

}  // namespace

std::vector<Fragment> split_qkv(const ParamSpec& param, const ModelSpec& model, bool per_head,
                                int tp) {
  if (param.fused != FusedKind::kQkv) {
    throw ConfigError(fmt::format(
        "cannot split '{}' as q/k/v{}: it is not a fused Megatron linear_qkv (fused kind '{}'); "
        "q/k/v splits apply only to '*.self_attention.linear_qkv.weight' in the Megatron layout",
        param.name, per_head ? " per head" : "", to_string(param.fused)));
  }
  if (param.shape.size() != 2 || param.shape[0] != model.qkv_rows() ||
      param.shape[1] != model.hidden_size) {
    throw ConfigError(fmt::format(
        "cannot split '{}': its shape does not match model '{}' ((H+2K)·d = {} rows, h = {} "
        "columns); pass the model the parameter came from",
        param.name, model.name, model.qkv_rows(), model.hidden_size));
  }
  check_tp(tp, model.num_kv_heads, param, "num_kv_heads");

  const std::int64_t d = model.head_dim;
  const std::int64_t groups = model.num_kv_heads;
  const std::int64_t q_per_group = model.heads_per_group();
  const std::int64_t group_rows = (q_per_group + 2) * d;
  const std::int64_t groups_per_rank = groups / tp;
  const std::int64_t shard_rows = groups_per_rank * group_rows;
  // Gathered row of (global group g, row offset o inside the group): shard r = g / groups_per_rank
  // starts at r·shard_rows, and its local group j = g % groups_per_rank at j·group_rows.
  auto group_start = [&](std::int64_t g) {
    return (g / groups_per_rank) * shard_rows + (g % groups_per_rank) * group_rows;
  };

  std::vector<Fragment> out;
  if (!per_head) {
    Fragment q = make(param, ".q", FragmentKind::kQuery, -1);
    Fragment k = make(param, ".k", FragmentKind::kKey, -1);
    Fragment v = make(param, ".v", FragmentKind::kValue, -1);
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t s = group_start(g);
      append(q.rows, s, s + q_per_group * d);
      append(k.rows, s + q_per_group * d, s + (q_per_group + 1) * d);
      append(v.rows, s + (q_per_group + 1) * d, s + group_rows);
    }
    for (Fragment* f : {&q, &k, &v}) {
      finish(*f);
      out.push_back(std::move(*f));
    }
    return out;
  }
  out.reserve(static_cast<std::size_t>(model.num_heads + 2 * groups));
  for (std::int64_t head = 0; head < model.num_heads; ++head) {
    const std::int64_t s = group_start(head / q_per_group) + (head % q_per_group) * d;
    Fragment f =
        make(param, fmt::format(".q.head{}", head), FragmentKind::kQuery, static_cast<int>(head));
    append(f.rows, s, s + d);
    finish(f);
    out.push_back(std::move(f));
  }
  for (FragmentKind kind : {FragmentKind::kKey, FragmentKind::kValue}) {
    const std::int64_t offset = (kind == FragmentKind::kKey ? q_per_group : q_per_group + 1) * d;
    for (std::int64_t g = 0; g < groups; ++g) {
      const std::int64_t s = group_start(g) + offset;
      Fragment f =
          make(param, fmt::format(".{}.group{}", kind == FragmentKind::kKey ? "k" : "v", g), kind,
               static_cast<int>(g));
      append(f.rows, s, s + d);
      finish(f);
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<Fragment> split_fc1(const ParamSpec& param, const ModelSpec& model, int tp) {
  if (param.fused != FusedKind::kGatedFc1) {
    throw ConfigError(fmt::format(
        "cannot split '{}' into gate/up: it is not a fused Megatron linear_fc1 (fused kind "
        "'{}'); the fc1 split applies only to '*.mlp.linear_fc1.weight' and "
        "'*.mlp.experts.linear_fc1.weight<e>' in the Megatron layout",
        param.name, to_string(param.fused)));
  }
  const std::int64_t ffn =
      param.role == ParamRole::kExpert ? model.moe_intermediate_size : model.intermediate_size;
  if (param.shape.size() != 2 || param.shape[0] != 2 * ffn || param.shape[1] != model.hidden_size) {
    throw ConfigError(fmt::format(
        "cannot split '{}': its shape does not match model '{}' (2·ffn = {} rows, h = {} "
        "columns); pass the model the parameter came from",
        param.name, model.name, 2 * ffn, model.hidden_size));
  }
  check_tp(tp, ffn, param,
           param.role == ParamRole::kExpert ? "moe_intermediate_size" : "intermediate_size");
  const std::int64_t local = ffn / tp;  // gate rows (and up rows) per shard
  Fragment gate = make(param, ".gate", FragmentKind::kGate, -1);
  Fragment up = make(param, ".up", FragmentKind::kUp, -1);
  for (std::int64_t r = 0; r < tp; ++r) {
    const std::int64_t s = r * 2 * local;
    append(gate.rows, s, s + local);
    append(up.rows, s + local, s + 2 * local);
  }
  finish(gate);
  finish(up);
  return {std::move(gate), std::move(up)};
}

std::vector<Fragment> split_parameter(const ParamSpec& param, const ModelSpec& model,
                                      const SplitOptions& options, int tp) {
  validate(options);
  if (!param.uses_matrix_optimizer()) {
    throw ConfigError(fmt::format(
        "'{}' ({}, {}-D) is updated by AdamW, not the matrix optimizer, so it has no matrix "
        "fragments; call split_parameter only for params with uses_matrix_optimizer()",
        param.name, to_string(param.role), param.shape.size()));
  }
  if (options.qkv && param.fused == FusedKind::kQkv) {
    return split_qkv(param, model, options.qkv_per_head, tp);
  }
  if (options.fc1 && param.fused == FusedKind::kGatedFc1) {
    return split_fc1(param, model, tp);
  }
  if (tp < 1) {
    throw ConfigError(fmt::format("cannot split '{}' for tp={}: tp must be >= 1", param.name, tp));
  }
  // Unsplit: the optimizer sees the gathered matrix as is. Its row order at tp > 1 differs from
  // the full matrix for linear_fc1, which is harmless: Newton–Schulz and Gram-matrix
  // eigenbases are equivariant under row permutations.
  Fragment f;
  f.name = param.name;
  f.kind = FragmentKind::kWhole;
  f.shape = param.shape;
  f.rows = {{0, param.shape.at(0)}};
  return {std::move(f)};
}

std::vector<Fragment> matrix_fragments(const std::vector<ParamSpec>& params, const ModelSpec& model,
                                       const SplitOptions& options, int tp) {
  std::vector<Fragment> out;
  for (const ParamSpec& p : params) {
    if (!p.uses_matrix_optimizer()) {
      continue;
    }
    std::vector<Fragment> pieces = split_parameter(p, model, options, tp);
    for (Fragment& f : pieces) {
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace canzona::model
