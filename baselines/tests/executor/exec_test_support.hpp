// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Shared by the executor tests: a tiny Qwen3-shaped model, the strategy scenarios, exact
// synthetic gradients, the map from a rank's TP-local buffers to the full tensors, and the
// single-process reference the executor must match bit for bit.
#pragma once

#include <canzona/backend/backend.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/model/parameters.hpp>
#include <canzona/model/spec.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/plan/step_plan.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace canzona::exec::testing {

/// Qwen3-shaped and tiny: 2 layers, hidden 64, 8 query heads and 4 KV heads of dim 8 (valid for
/// tp 1, 2, 4), SwiGLU width 96, vocab 512 (no vocab padding up to tp 4), untied head.
model::ModelSpec tiny_qwen3();

/// One DP × TP strategy combination under test.
struct Scenario {
  std::string label;
  plan::StrategyOptions options;  ///< optimizer unset; see options_for
};

/// Every registry strategy (baselines::strategy_names), plus static+asc, layerwise-lpt+canzona,
/// canzona with gather-scatter transport, canzona with qkv (per head) and fc1 splits, canzona
/// with a slot capacity small enough to form several micro-groups, canzona and asc with the
/// serial TP execution, and the other precisions: canzona, sc and layerwise in pure fp32, and
/// canzona and layerwise with gradients reduced in bf16. All in Megatron's bf16 + fp32-main
/// precision unless named otherwise. Small buckets so every buffer has several.
std::vector<Scenario> scenarios();

/// Hyper-parameters of the tests: visible learning rates, and Shampoo / SOAP refreshing every
/// 2 steps so a 5-step run crosses refreshes.
optim::OptimizerSpec optimizer_spec(optim::OptimizerKind kind);

/// The scenario's options with `kind` as the matrix optimizer.
plan::StrategyOptions options_for(const Scenario& scenario, optim::OptimizerKind kind);

/// Gradient element `index` (in the parameter's reference tensor) that DP rank `dp_rank` sees at
/// step `step`: an integer in [-16, 16] times 2^-8, so sums over up to 8 ranks and the division
/// by a power-of-two dp are exact in fp32, whatever the reduction order.
float grad_value(std::uint64_t seed, int step, int dp_rank, std::size_t param, std::int64_t index);
/// Initial value of a reference element (an integer in [-64, 64] times 2^-7).
float init_value(std::uint64_t seed, std::size_t param, std::int64_t index);

/// Elements of a parameter's reference tensor: the full matrix for matrix-optimizer parameters
/// (Megatron fused order), the TP-gathered tensor of the local shape for the others.
std::int64_t reference_numel(const model::ParamSpec& param, const std::vector<std::int64_t>& local,
                             int tp);

/// For every element of TP rank `t`'s local tensor (row-major), its index in the reference
/// tensor. Written from Megatron's documented sharding, independently of the plan: column
/// parallel = row block t (a gated fc1 shard is [gate rows block t; up rows block t]), row
/// parallel = column block t, replicated = everything.
std::vector<std::int64_t> reference_index(const model::ParamSpec& param,
                                          const std::vector<std::int64_t>& local, int tp, int t);

/// Writes every entry of `executor`'s model parameters (grads = false) or gradients from
/// value(buffer, entry, element of the TP-local entry), converted to the buffer's element type
/// (the tests' values are exact in bf16); padding stays zero.
void upload_buffers(backend::Backend& be, const Executor& executor, bool grads,
                    const std::function<float(std::size_t, std::size_t, std::int64_t)>& value);
/// The model parameters / gradients of buffer `buffer`, widened to fp32 (exactly).
std::vector<float> download_params(backend::Backend& be, const Executor& executor,
                                   std::size_t buffer);
std::vector<float> download_grads(backend::Backend& be, const Executor& executor,
                                  std::size_t buffer);
/// The fp32 main parameters of one range.
std::vector<float> download_main(backend::Backend& be, const MainRange& range);

/// The single-process reference with the executor's casts: fp32 main parameters built from the
/// bf16-exact initial values, the same MatrixOptimizer (cpu backend) stepping the fragments
/// (tp = 1) of every full matrix one by one, AdamW on every other reference tensor, both fed
/// the DP-averaged gradient (sum over ranks, then × 1/dp, as the executor averages; the test
/// gradients make that exact in fp32 and in bf16), and model parameters = the main parameters
/// rounded to the plan's parameter type.
class Reference {
 public:
  Reference(const model::ModelSpec& model, const plan::StepPlan& plan, std::uint64_t seed);
  void step(int step_index);
  /// Current fp32 main tensor of layout parameter `param`.
  const std::vector<float>& values(std::size_t param) const { return values_.at(param); }
  /// Element `index` of the model parameter: the main value rounded to `type`.
  float model_value(std::size_t param, std::int64_t index, backend::ElementType type) const;
  /// The state of fragment `fragment` of matrix parameter `param` (layout param index).
  const optim::MatrixState& state(std::size_t param, std::size_t fragment) const {
    return *fragments_.at(param).at(fragment).state;
  }

 private:
  struct Fragment {
    std::unique_ptr<optim::MatrixState> state;
    std::vector<std::int64_t> rows;  // full-matrix rows, in fragment order
    std::vector<float> param, grad;
  };
  plan::StepPlan plan_;
  std::uint64_t seed_;
  std::unique_ptr<backend::Backend> backend_;
  std::unique_ptr<optim::MatrixOptimizer> matrix_;
  std::unique_ptr<optim::MatrixOptimizer> adamw_;
  std::vector<std::vector<float>> values_;
  std::vector<std::vector<Fragment>> fragments_;                   // per param (matrices only)
  std::vector<std::unique_ptr<optim::MatrixState>> adamw_states_;  // per param (AdamW only)
  std::vector<float> average_;
};

}  // namespace canzona::exec::testing
