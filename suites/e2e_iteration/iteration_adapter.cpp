// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "iteration_adapter.hpp"

#include "rank_session.hpp"

#include <canzona/comm/process_groups.hpp>
#include <canzona/core/error.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/plan/step_plan.hpp>
#include <canzona/torch_model/compat.hpp>
#include <canzona/torch_model/data_parallel_iteration.hpp>
#include <canzona/torch_model/memory.hpp>

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace canzona::bench::e2e {

namespace tm = canzona::torch_model;

namespace {

at::ScalarType model_dtype(const plan::StepPlan& p) {
  return p.options.precision.params == comm::DataType::kBFloat16 ? at::kBFloat16 : at::kFloat;
}

int element_bytes(const plan::StepPlan& p) {
  return static_cast<int>(comm::size_of(p.options.precision.params));
}

}  // namespace

struct RankIteration::Impl {
  model::ModelSpec spec;
  E2ECase c;
  int micro_batches = 1;
  std::uint64_t seed = 1;
  int dp_rank = 0;
  int iterations = 0;
  std::unique_ptr<exec::Executor> executor;
  std::unique_ptr<comm::Communicator> model_tp;  ///< the model's own TP communicator
  std::unique_ptr<tm::Qwen3Model> model;
  std::unique_ptr<tm::DataParallelIteration> iteration;

  ~Impl() {
    // Graph-free by now; the model refers to model_tp, the iteration to both.
    iteration.reset();
    model.reset();
    if (model_tp) model_tp->finalize();
  }

  // Micro-batches of this DP rank for the next iteration: the same on its TP ranks.
  std::vector<tm::MicroBatch> next_batches() {
    std::vector<tm::MicroBatch> batches;
    for (int m = 0; m < micro_batches; ++m) {
      const std::uint64_t stream = seed + 1000003ULL * static_cast<std::uint64_t>(dp_rank) +
                                   static_cast<std::uint64_t>(iterations * micro_batches + m) + 1;
      at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(stream);
      const at::Tensor ids = at::randint(spec.vocab_size, {c.mbs, c.seq + 1}, generator,
                                         at::TensorOptions().dtype(at::kLong));
      at::Tensor tokens = ids.narrow(1, 0, c.seq).contiguous();
      at::Tensor labels = ids.narrow(1, 1, c.seq).contiguous();
      batches.push_back({tokens.to(model->device()), labels.to(model->device())});
    }
    ++iterations;
    return batches;
  }
};

RankIteration::RankIteration(step::StepJob& job, const step::CasePlan& plan, const E2ECase& c,
                             int micro_batches, std::uint64_t seed, int torch_threads)
    : impl_(std::make_unique<Impl>()) {
  Impl& i = *impl_;
  at::set_num_threads(torch_threads);
  const plan::StepPlan& p = step::step_plan(plan);
  i.spec = model::model_from_name(c.step.model);
  i.c = c;
  i.micro_batches = micro_batches;
  i.seed = seed;
  comm::ProcessGroups& groups = step::job_groups(job, p.tp());
  backend::Backend& be = step::job_backend(job);
  i.dp_rank = groups.dp->rank();
  i.executor =
      std::make_unique<exec::Executor>(p, step::job_world(job), *groups.dp, *groups.tp, be);
  // Its own communicator, so that the model's all-reduces never interleave with the
  // optimizer's TP collectives.
  i.model_tp = groups.tp->split(0, groups.tp->rank(), "model_tp");
  tm::ModelOptions options;
  options.dtype = model_dtype(p);
  options.shape = {c.mbs, c.seq};
  if (be.device() >= 0) {
    options.device = at::Device(at::kCUDA, static_cast<at::DeviceIndex>(be.device()));
  }
  i.model = std::make_unique<tm::Qwen3Model>(i.spec, tm::TensorParallelGroup(*i.model_tp), options);
  i.model->init_parameters({.seed = seed});
  i.iteration = std::make_unique<tm::DataParallelIteration>(*i.model, *i.executor, be);
}

RankIteration::~RankIteration() = default;

IterationRecord RankIteration::run(bool optimizer) {
  Impl& i = *impl_;
  i.iteration->run(i.next_batches(),
                   optimizer ? tm::StepKind::kOptimizer : tm::StepKind::kGradSyncOnly);
  const tm::IterationTimes& t = i.iteration->last_times();
  return {t.total, t.forward, t.backward, t.step};
}

void check_rank_memory(const step::CasePlan& plan, const E2ECase& c, const std::string& backend,
                       int ranks_per_host, double limit_bytes) {
  const plan::StepPlan& p = step::step_plan(plan);
  const model::ModelSpec spec = model::model_from_name(c.step.model);
  const tm::RunShape shape{c.mbs, c.seq};
  const tm::MemoryEstimate model =
      tm::estimate_memory(spec, c.step.tp, shape, element_bytes(p), tm::compat::kFusedAttention);
  const double executor = step::estimated_rank_bytes(plan);
  const std::int64_t available = limit_bytes > 0 ? static_cast<std::int64_t>(limit_bytes)
                                 : backend == "cuda"
                                     ? tm::available_cuda_bytes(job_local_rank())
                                     : tm::available_host_bytes() / std::max(1, ranks_per_host);
  const double needed = static_cast<double>(model.total()) + executor;
  if (needed <= static_cast<double>(available)) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw ConfigError(fmt::format(
      "{}: one rank needs about {:.2f} GiB on {} (the model's parameters {:.2f}, gradients "
      "{:.2f} and activations {:.2f}; the executor's ZeRO-1 buffers and optimizer state {:.2f}) "
      "but {:.2f} GiB are available to each of the {} rank(s) sharing it; use more ranks (a "
      "larger tp), a smaller micro-batch or sequence, a smaller or scaled model "
      "(qwen3-8b~d32), or a machine with more memory",
      benchmark_name(c), needed / kGiB, backend, static_cast<double>(model.parameter_bytes) / kGiB,
      static_cast<double>(model.gradient_bytes) / kGiB,
      static_cast<double>(model.activation_bytes) / kGiB, executor / kGiB,
      static_cast<double>(available) / kGiB, ranks_per_host));
}

}  // namespace canzona::bench::e2e
