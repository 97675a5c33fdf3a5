// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "exec_test_support.hpp"

#include <canzona/backend/cpu_backend.hpp>
#include <canzona/backend/host_values.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/core/bf16.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/splitmix.hpp>
#include <canzona/testing/tiny_model.hpp>

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace canzona::exec::testing {
namespace {

// The test values hash (seed, a, b, c, d) as splitmix64 of the seed and one mix per argument.
// The mixes are separate functions so that the reference's sum over DP ranks (only b varies)
// mixes the other arguments once per element instead of once per rank.
std::uint64_t mix_a(std::uint64_t a) { return splitmix64(a + 1); }
std::uint64_t mix_b(std::uint64_t b) { return splitmix64((b + 7) * 0x100000001B3ULL); }
std::uint64_t mix_c(std::uint64_t c) { return splitmix64(c * 31 + 3); }
std::uint64_t mix_d(std::int64_t d) {
  return splitmix64(static_cast<std::uint64_t>(d) * 0x9E3779B1ULL);
}

std::uint64_t hash(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c,
                   std::int64_t d) {
  return splitmix64(seed ^ mix_a(a) ^ mix_b(b) ^ mix_c(c) ^ mix_d(d));
}

float grad_from_hash(std::uint64_t h) {
  return static_cast<float>(static_cast<int>(h % 33) - 16) * 0x1p-8f;
}

constexpr std::int64_t kBucketElements = 20'000;  // several buckets per buffer

plan::StrategyOptions base_options() {
  plan::StrategyOptions o;
  o.zero1.bucket_size = kBucketElements;
  return o;
}

// n elements of `type` at `data` in backend memory, widened to fp32 (exactly).
std::vector<float> download_widened(backend::Backend& be, const void* data, std::size_t n,
                                    backend::ElementType type) {
  std::vector<float> out(n);
  if (type == backend::ElementType::kFloat32) {
    be.download(out.data(), data, n * sizeof(float));
    return out;
  }
  std::vector<std::uint16_t> bits(n);
  be.download(bits.data(), data, n * sizeof(std::uint16_t));
  for (std::size_t i = 0; i < n; ++i) out[i] = canzona::bf16_to_float(bits[i]);
  return out;
}

}  // namespace

model::ModelSpec tiny_qwen3() { return canzona::testing::tiny_dense_model(); }

std::vector<Scenario> scenarios() {
  std::vector<Scenario> out;
  for (std::string_view name : baselines::strategy_names()) {
    plan::StrategyOptions o = base_options();
    baselines::apply_strategy(name, o);
    out.push_back(Scenario{std::string(name), o});
  }
  auto add = [&](std::string label, plan::DpStrategy dp, plan::TpStrategy tp) -> Scenario& {
    plan::StrategyOptions o = base_options();
    o.dp = dp;
    o.tp = tp;
    out.push_back(Scenario{std::move(label), o});
    return out.back();
  };
  add("static+asc", plan::DpStrategy::kStatic, plan::TpStrategy::kAsync);
  add("layerwise-lpt+canzona", plan::DpStrategy::kLayerwiseLpt, plan::TpStrategy::kCanzona);
  add("canzona/gather-scatter", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona)
      .options.transport = plan::TpTransport::kGatherScatter;
  Scenario& split =
      add("canzona/split-qkv-heads-fc1", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona);
  split.options.split.qkv = true;
  split.options.split.qkv_per_head = true;
  split.options.split.fc1 = true;
  // 0.05 MiB = 13107 fp32 elements per slot: several micro-groups (the staging ring turns over).
  add("canzona/slot-capacity", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona)
      .options.slot_mib = 0.05;
  add("canzona/serial", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona)
      .options.tp_execution = plan::TpExecution::kSerial;
  Scenario& serial_asc =
      add("asc/serial/gather-scatter", plan::DpStrategy::kCanzona, plan::TpStrategy::kAsync);
  serial_asc.options.tp_execution = plan::TpExecution::kSerial;
  serial_asc.options.transport = plan::TpTransport::kGatherScatter;
  const auto fp32 = [](Scenario& s) {
    s.options.precision.params = comm::DataType::kFloat32;
    return s;
  };
  fp32(add("canzona/fp32", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona));
  fp32(add("sc/fp32", plan::DpStrategy::kReplicated, plan::TpStrategy::kReplicated));
  fp32(add("layerwise/fp32", plan::DpStrategy::kLayerwisePingPong, plan::TpStrategy::kReplicated));
  add("canzona/grad-bf16", plan::DpStrategy::kCanzona, plan::TpStrategy::kCanzona)
      .options.precision.grad_reduce = comm::DataType::kBFloat16;
  add("layerwise/grad-bf16", plan::DpStrategy::kLayerwisePingPong, plan::TpStrategy::kReplicated)
      .options.precision.grad_reduce = comm::DataType::kBFloat16;
  return out;
}

optim::OptimizerSpec optimizer_spec(optim::OptimizerKind kind) {
  optim::OptimizerSpec spec;
  spec.kind = kind;
  spec.muon.lr = 0.02;
  spec.shampoo.lr = 0.01;
  spec.shampoo.refresh_interval = 2;
  spec.soap.lr = 0.01;
  spec.soap.precondition_frequency = 2;
  spec.adamw.lr = 0.01;
  return spec;
}

plan::StrategyOptions options_for(const Scenario& scenario, optim::OptimizerKind kind) {
  plan::StrategyOptions o = scenario.options;
  o.optimizer = optimizer_spec(kind);
  return o;
}

float grad_value(std::uint64_t seed, int step, int dp_rank, std::size_t param, std::int64_t index) {
  return grad_from_hash(hash(seed, static_cast<std::uint64_t>(step),
                             static_cast<std::uint64_t>(dp_rank), param, index));
}

float init_value(std::uint64_t seed, std::size_t param, std::int64_t index) {
  const std::uint64_t h = hash(~seed, 0xFFFF, 0xFFFF, param, index);
  return static_cast<float>(static_cast<int>(h % 129) - 64) * 0x1p-7f;
}

std::int64_t reference_numel(const model::ParamSpec& param, const std::vector<std::int64_t>& local,
                             int tp) {
  if (param.uses_matrix_optimizer()) return param.numel();
  std::int64_t n = 1;
  for (std::int64_t d : local) n *= d;
  return param.tp_dim == model::kReplicated ? n : n * tp;
}

std::vector<std::int64_t> reference_index(const model::ParamSpec& param,
                                          const std::vector<std::int64_t>& local, int tp, int t) {
  const std::int64_t rows = local.at(0);
  const std::int64_t cols = local.size() > 1 ? local[1] : 1;
  std::vector<std::int64_t> index(static_cast<std::size_t>(rows * cols));
  // Full (reference) columns: the row-parallel dim is gathered, everything else is as local.
  const bool row_parallel = tp > 1 && param.tp_dim == model::kRowParallel;
  const bool column_parallel = tp > 1 && param.tp_dim == model::kColumnParallel;
  const std::int64_t full_cols = row_parallel ? cols * tp : cols;
  const bool gated = param.fused == model::FusedKind::kGatedFc1 && param.uses_matrix_optimizer();
  for (std::int64_t r = 0; r < rows; ++r) {
    std::int64_t full_row = r;
    if (column_parallel && gated) {
      // Megatron shards gate and up separately: shard t = [gate_t; up_t].
      const std::int64_t half = rows / 2;
      const std::int64_t ffn = half * tp;
      full_row = r < half ? t * half + r : ffn + t * half + (r - half);
    } else if (column_parallel) {
      full_row = t * rows + r;
    }
    for (std::int64_t c = 0; c < cols; ++c) {
      const std::int64_t full_col = row_parallel ? t * cols + c : c;
      index[static_cast<std::size_t>(r * cols + c)] = full_row * full_cols + full_col;
    }
  }
  return index;
}

void upload_buffers(backend::Backend& be, const Executor& executor, bool grads,
                    const std::function<float(std::size_t, std::size_t, std::int64_t)>& value) {
  const plan::StepPlan& p = executor.plan();
  const backend::ElementType type = grads ? executor.grad_type() : executor.param_type();
  for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
    const auto n = static_cast<std::size_t>(executor.buffer_elements(b));
    std::vector<float> host(n, 0.0f);
    const auto& entries = p.layout.buffers[b].entries;
    for (std::size_t e = 0; e < entries.size(); ++e) {
      for (std::int64_t i = 0; i < entries[e].numel(); ++i) {
        host[static_cast<std::size_t>(entries[e].start + i)] = value(b, e, i);
      }
    }
    backend::upload_values(be, grads ? executor.grads(b) : executor.params(b), type, host);
  }
}

std::vector<float> download_params(backend::Backend& be, const Executor& executor,
                                   std::size_t buffer) {
  return download_widened(be, executor.params(buffer),
                          static_cast<std::size_t>(executor.buffer_elements(buffer)),
                          executor.param_type());
}

std::vector<float> download_grads(backend::Backend& be, const Executor& executor,
                                  std::size_t buffer) {
  return download_widened(be, executor.grads(buffer),
                          static_cast<std::size_t>(executor.buffer_elements(buffer)),
                          executor.grad_type());
}

std::vector<float> download_main(backend::Backend& be, const MainRange& range) {
  std::vector<float> out(static_cast<std::size_t>(range.end - range.begin));
  be.download(out.data(), range.data, out.size() * sizeof(float));
  return out;
}

float Reference::model_value(std::size_t param, std::int64_t index,
                             backend::ElementType type) const {
  const float main = values_.at(param).at(static_cast<std::size_t>(index));
  return type == backend::ElementType::kBFloat16 ? canzona::round_to_bf16(main) : main;
}

Reference::Reference(const model::ModelSpec& model, const plan::StepPlan& plan, std::uint64_t seed)
    : plan_(plan), seed_(seed), backend_(backend::make_cpu_backend()) {
  matrix_ = optim::make_matrix_optimizer(plan.options.optimizer, *backend_);
  optim::OptimizerSpec adamw = plan.options.optimizer;
  adamw.kind = optim::OptimizerKind::kAdamW;
  adamw_ = optim::make_matrix_optimizer(adamw, *backend_);
  const std::size_t n = plan.layout.params.size();
  values_.resize(n);
  fragments_.resize(n);
  adamw_states_.resize(n);
  // The local shape of every parameter, from its buffer entry.
  std::vector<std::vector<std::int64_t>> local(n);
  for (const layout::Buffer& buffer : plan.layout.buffers) {
    for (const layout::BufferEntry& e : buffer.entries) local.at(e.param_index) = e.shape;
  }
  for (std::size_t p = 0; p < n; ++p) {
    const model::ParamSpec& param = plan.layout.params[p];
    std::vector<float>& v = values_[p];
    v.resize(static_cast<std::size_t>(reference_numel(param, local[p], plan.tp())));
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = init_value(seed, p, static_cast<std::int64_t>(i));
    }
    if (!param.uses_matrix_optimizer()) {
      adamw_states_[p] = adamw_->make_state(1, static_cast<std::int64_t>(v.size()));
      continue;
    }
    // Fragments of the full matrix: tp = 1, whatever the job's tp.
    for (const model::Fragment& f :
         plan::plan_fragments(param, model, plan.options.split, /*tp=*/1)) {
      Fragment frag;
      frag.state = matrix_->make_state(f.shape.at(0), f.shape.at(1));
      for (const model::RowRange& r : f.rows) {
        for (std::int64_t row = r.begin; row < r.end; ++row) frag.rows.push_back(row);
      }
      frag.param.resize(static_cast<std::size_t>(f.numel()));
      frag.grad.resize(frag.param.size());
      fragments_[p].push_back(std::move(frag));
    }
  }
}

void Reference::step(int step_index) {
  const int dp = plan_.dp();
  const float inverse_dp = 1.0f / static_cast<float>(dp);
  // grad_value summed over the DP ranks in rank order, its hash taken apart (see mix_a).
  std::vector<std::uint64_t> rank_mix(static_cast<std::size_t>(dp));
  for (int d = 0; d < dp; ++d)
    rank_mix[static_cast<std::size_t>(d)] = mix_b(static_cast<std::uint64_t>(d));
  const std::uint64_t step_mix = seed_ ^ mix_a(static_cast<std::uint64_t>(step_index));
  for (std::size_t p = 0; p < values_.size(); ++p) {
    std::vector<float>& v = values_[p];
    average_.assign(v.size(), 0.0f);
    const std::uint64_t param_mix = step_mix ^ mix_c(p);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::uint64_t element_mix = param_mix ^ mix_d(static_cast<std::int64_t>(i));
      float sum = 0.0f;
      for (const std::uint64_t r : rank_mix) sum += grad_from_hash(splitmix64(element_mix ^ r));
      average_[i] = dp == 1 ? sum : sum * inverse_dp;
    }
    if (adamw_states_[p]) {
      // The cpu backend's memory is host memory, so plain vectors serve as backend arrays.
      adamw_->step(*adamw_states_[p], v.data(), average_.data());
      continue;
    }
    const auto cols = static_cast<std::size_t>(plan_.layout.params[p].shape.at(1));
    for (Fragment& f : fragments_[p]) {
      for (std::size_t r = 0; r < f.rows.size(); ++r) {
        const std::size_t src = static_cast<std::size_t>(f.rows[r]) * cols;
        for (std::size_t c = 0; c < cols; ++c) {
          f.param[r * cols + c] = v[src + c];
          f.grad[r * cols + c] = average_[src + c];
        }
      }
      matrix_->step(*f.state, f.param.data(), f.grad.data());
      for (std::size_t r = 0; r < f.rows.size(); ++r) {
        const std::size_t dst = static_cast<std::size_t>(f.rows[r]) * cols;
        for (std::size_t c = 0; c < cols; ++c) v[dst + c] = f.param[r * cols + c];
      }
    }
  }
}

}  // namespace canzona::exec::testing
