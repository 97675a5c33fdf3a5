// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_adapter.hpp"

#include "rank_session.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/backend/host_values.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/bench/plan_settings_flags.hpp>
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/config.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/synthetic_values.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/layout/parallel_config.hpp>
#include <canzona/model/catalog.hpp>
#include <canzona/optim/cost_model.hpp>
#include <canzona/plan/preset.hpp>
#include <canzona/plan/step_plan.hpp>
#include <canzona/sim/compute_model.hpp>
#include <canzona/sim/local_calibration.hpp>
#include <canzona/sim/projector.hpp>
#include <canzona/sim/topology.hpp>

#include <canzona/comm/nccl_factory.hpp>
#include <canzona/core/device.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace canzona::bench::step {
namespace {

// The strategy options a plan depends on, as "key=value" (the spellings of `plan`'s flags).
std::vector<std::pair<std::string, std::string>> option_fields(const plan::StrategyOptions& o) {
  const model::SplitOptions& s = o.split;
  const std::string split = !s.qkv && !s.fc1 ? "none"
                                             : fmt::format("{}{}{}", s.qkv ? "qkv" : "",
                                                           s.qkv_per_head ? "+qkv-per-head" : "",
                                                           s.fc1 ? (s.qkv ? "+fc1" : "fc1") : "");
  std::vector<std::pair<std::string, std::string>> fields = {
      {"dp", std::string(plan::to_string(o.dp))},
      {"tp", std::string(plan::to_string(o.tp))},
      {"alpha", fmt::format("{}", o.alpha)},
      {"cost", std::string(plan::to_string(o.cost))},
      {"tp_schedule", std::string(plan::to_string(o.tp_schedule))},
      {"slot_mib", fmt::format("{}", o.slot_mib)},
      {"transport", std::string(plan::to_string(o.transport))},
      {"tp_execution", std::string(plan::to_string(o.tp_execution))},
      {"param_dtype", std::string(plan::dtype_name(o.precision.params))},
      {"grad_reduce_dtype", std::string(plan::dtype_name(o.precision.grad_reduce))},
      {"split", split},
      {"bucket_size", fmt::format("{}", o.zero1.bucket_size)}};
  if (o.optimizer.kind == optim::OptimizerKind::kMuon) {
    fields.emplace_back("ns_coefficients",
                        std::string(optim::to_string(o.optimizer.muon.coefficients)));
    fields.emplace_back("nesterov", o.optimizer.muon.nesterov ? "1" : "0");
  }
  return fields;
}

// The fields of `options` that differ from `defaults`, "k=v" joined by ','.
std::string changed_options(const plan::StrategyOptions& options,
                            const plan::StrategyOptions& defaults) {
  const auto given = option_fields(options);
  const auto standard = option_fields(defaults);
  std::vector<std::string> changed;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] != standard[i]) changed.push_back(given[i].first + "=" + given[i].second);
  }
  return fmt::format("{}", fmt::join(changed, ","));
}

int refresh_interval(const optim::OptimizerSpec& spec) {
  switch (spec.kind) {
    case optim::OptimizerKind::kShampoo:
      return spec.shampoo.refresh_interval;
    case optim::OptimizerKind::kSoap:
      return spec.soap.precondition_frequency;
    default:
      return 1;
  }
}

// Every rank measured the same shapes at the same time; average them so that every rank projects
// with the same numbers (and one descheduled rank does not decide alone).
void agree_on_cache(comm::Communicator& world, sim::ComputeCache& cache) {
  std::vector<double> seconds;
  for (const auto& [key, value] : cache.entries()) seconds.push_back(value);
  double sizes[2] = {static_cast<double>(seconds.size()), -static_cast<double>(seconds.size())};
  double extremes[2] = {0, 0};
  world.all_reduce(sizes, extremes, 2, comm::DataType::kFloat64, comm::ReduceOp::kMax).wait();
  CANZONA_CHECK(extremes[0] == -extremes[1], "ranks measured different sets of shapes");
  std::vector<double> sum(seconds.size());
  world
      .all_reduce(seconds.data(), sum.data(), seconds.size(), comm::DataType::kFloat64,
                  comm::ReduceOp::kSum)
      .wait();
  std::size_t i = 0;
  for (const auto& [key, value] : std::map<std::string, double>(cache.entries())) {
    cache.insert(key, sum[i++] / world.size());
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// CasePlan

struct PlanSettings::Impl {
  std::unique_ptr<bench::PlanSettingsFlags> flags;
  std::string text;
};

PlanSettings::PlanSettings(const std::string& flags) : impl_(std::make_unique<Impl>()) {
  CLI::App parser("plan settings");
  impl_->flags = std::make_unique<bench::PlanSettingsFlags>(parser);
  try {
    parser.parse(flags, /*program_name_included=*/false);
  } catch (const CLI::ParseError& e) {
    throw ConfigError(
        fmt::format("--canzona_plan='{}': {} (the flags of canzona-bench plan: "
                    "--preset, --bucket-size, --cost, --slot-mib, --tp-execution, "
                    "--param-dtype, --grad-reduce-dtype, --split)",
                    flags, e.what()));
  }
  impl_->flags->preset();  // an unknown preset fails here, before any case
  impl_->text = impl_->flags->as_flags();
}

PlanSettings::~PlanSettings() = default;

const std::string& PlanSettings::flags() const { return impl_->text; }

struct CasePlan::Impl {
  plan::StepPlan plan;
  PlanFacts facts;
};

namespace {

// The options of a case: the strategy's sides, then the preset and its switches (applied where
// the sides read them: the suite plans several strategies), then the optimizer.
plan::StrategyOptions case_options(const StepCase& c, const bench::PlanSettingsFlags* settings) {
  plan::StrategyOptions options;
  baselines::apply_strategy(c.strategy, options);
  if (settings) {
    settings->apply(options, /*check_sides=*/false);
  } else {
    plan::apply_preset(plan::Preset::kMegatron, options);
  }
  options.optimizer.kind = optim::parse_optimizer_kind(c.optimizer);
  return options;
}

}  // namespace

CasePlan::CasePlan(const StepCase& c, int gpus_per_node, const PlanSettings& settings)
    : impl_(std::make_unique<Impl>()) {
  const model::ModelSpec spec = model::model_from_name(c.model);
  layout::ParallelConfig config;
  config.dp = c.dp;
  config.tp = c.tp;
  config.gpus_per_node = std::max(gpus_per_node, c.tp);
  const plan::StrategyOptions options = case_options(c, settings.impl().flags.get());
  impl_->plan = baselines::make_step_plan(spec, config, options);

  const plan::StepPlan& p = impl_->plan;
  const plan::PlanMetrics metrics = plan::plan_metrics(p);
  PlanFacts& f = impl_->facts;
  f.hash = fmt::format("{:016x}", plan::plan_hash(p));
  // Against the defaults resolved the same way (the bucket size follows dp).
  f.options = changed_options(
      p.options, baselines::make_step_plan(spec, config, case_options(c, nullptr)).options);
  f.imbalance = metrics.imbalance;
  for (const plan::RankLoad& rank : metrics.ranks) {
    f.state_bytes = std::max(f.state_bytes, static_cast<double>(rank.state_bytes));
    double sent = 0;
    for (std::size_t i = 0; i < kCommPhases.size(); ++i) {
      const auto phase =
          static_cast<double>(rank.bytes_sent[static_cast<std::size_t>(kCommPhases[i])]);
      f.max_bytes_sent[i] = std::max(f.max_bytes_sent[i], phase);
      sent += phase;
    }
    f.comm_bytes = std::max(f.comm_bytes, sent);
  }
  f.refresh_interval = refresh_interval(p.options.optimizer);
}

CasePlan::~CasePlan() = default;

const PlanFacts& CasePlan::facts() const { return impl_->facts; }

// ---------------------------------------------------------------------------------------------
// StepJob

struct StepJob::Impl {
  std::string backend_name;
  std::unique_ptr<comm::MpiCommunicator> host;
  std::unique_ptr<comm::Communicator> device;  ///< NCCL world for the cuda backend
  std::unique_ptr<backend::Backend> backend;
  std::map<int, comm::ProcessGroups> groups;  ///< by tp
  // The projector's view of this job (project_here), built on first use.
  std::optional<sim::Topology> local_topology;
  std::unique_ptr<sim::ComputeCache> cache;
  std::unique_ptr<sim::MeasuredCompute> compute;
  bool projector_off = false;  ///< the calibration failed: no projector_ms in this run

  comm::Communicator& world() { return device ? *device : *host; }
  comm::ProcessGroups& groups_for(int tp) {
    auto it = groups.find(tp);
    if (it == groups.end()) it = groups.emplace(tp, comm::split_dp_tp(world(), tp)).first;
    return it->second;
  }
};

namespace {
std::unique_ptr<StepJob> g_job;
}  // namespace

StepJob& StepJob::get(const std::string& backend) {
  if (!g_job) {
    g_job.reset(new StepJob(backend));
    on_job_end([] { g_job.reset(); });
  }
  CANZONA_CHECK(g_job->impl_->backend_name == backend, "one backend per run");
  return *g_job;
}

StepJob::StepJob(const std::string& backend) : impl_(std::make_unique<Impl>()) {
  Impl& j = *impl_;
  j.backend_name = backend;
  j.host = comm::MpiCommunicator::world();
  if (backend == "cuda") {
#if CANZONA_WITH_NCCL
    auto nccl = comm::make_nccl_communicator(*j.host, "world", -1);
    j.backend = backend::make_backend("cuda", nccl->device());
    j.device = std::move(nccl);
#else
    throw ConfigError("the cuda backend runs ranks over NCCL; this build has no NCCL");
#endif
  } else {
    j.backend = backend::make_backend(backend);
  }
}

namespace {

// NCCL communicators are torn down collectively (finalize); destroying one unfinalised aborts it.
void finalize(std::unique_ptr<comm::Communicator>& c) {
  if (c) c->finalize();
  c.reset();
}

}  // namespace

StepJob::~StepJob() {
  // Every rank ends the job here, together: communicators go before MPI is finalised.
  for (auto& [tp, groups] : impl_->groups) {
    finalize(groups.tp);
    finalize(groups.dp);
  }
  finalize(impl_->device);
}

comm::Communicator& StepJob::host_world() { return *impl_->host; }

const plan::StepPlan& step_plan(const CasePlan& plan) { return plan.impl().plan; }
comm::Communicator& job_world(StepJob& job) { return job.impl().world(); }
comm::ProcessGroups& job_groups(StepJob& job, int tp) { return job.impl().groups_for(tp); }
backend::Backend& job_backend(StepJob& job) { return *job.impl().backend; }

// ---------------------------------------------------------------------------------------------
// RankStepper

struct RankStepper::Impl {
  StepJob::Impl& job;
  std::unique_ptr<exec::Executor> executor;
  /// Per layout buffer, the gradients as the executor's gradient buffer holds them (its type),
  /// on the backend: load_gradients restores them with one device-side copy (while they were
  /// re-uploaded from host memory, a GPU node spent 0.37 s of host time per 26 ms step of a
  /// full Qwen3-0.6B).
  std::vector<backend::Buffer> grads;
  int refresh_interval = 1;
  std::uint64_t last_operations = 0;
};

RankStepper::RankStepper(StepJob& job, const CasePlan& plan, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(Impl{job.impl(), nullptr, {}, plan.facts().refresh_interval})) {
  StepJob::Impl& j = job.impl();
  const plan::StepPlan& p = plan.impl().plan;
  comm::ProcessGroups& groups = j.groups_for(p.tp());
  impl_->executor =
      std::make_unique<exec::Executor>(p, j.world(), *groups.dp, *groups.tp, *j.backend);
  const exec::Executor& ex = *impl_->executor;
  const auto rank = static_cast<std::uint64_t>(j.host->rank());
  constexpr float kStddev = 0.02f;
  for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
    // Normal(0, 0.02) values inside every entry, a function of (seed, rank, buffer, element):
    // filled on every core. Padding stays zero, as the executor requires.
    std::vector<float> params(static_cast<std::size_t>(ex.buffer_elements(b)), 0.0f);
    std::vector<float> grads(params.size(), 0.0f);
    const std::uint64_t param_key = synthetic_key(seed, rank, b, 0);
    const std::uint64_t grad_key = synthetic_key(seed, rank, b, 1);
    for (const layout::BufferEntry& e : p.layout.buffers[b].entries) {
      const auto first = static_cast<std::size_t>(e.start);
      const auto count = static_cast<std::size_t>(e.end - e.start);
      fill_synthetic_normal(std::span(params).subspan(first, count), param_key, kStddev, first);
      fill_synthetic_normal(std::span(grads).subspan(first, count), grad_key, kStddev, first);
    }
    backend::upload_values(*j.backend, ex.params(b), ex.param_type(), params);
    const std::vector<std::uint8_t> typed = backend::host_elements(grads, ex.grad_type());
    backend::Buffer kept = j.backend->allocate(typed.size());
    j.backend->upload(kept.data(), typed.data(), typed.size());
    impl_->grads.push_back(std::move(kept));
  }
  j.backend->synchronize();
}

RankStepper::~RankStepper() = default;

void RankStepper::load_gradients() {
  for (std::size_t b = 0; b < impl_->grads.size(); ++b) {
    impl_->job.backend->copy(impl_->executor->grads(b), impl_->grads[b].data(),
                             impl_->grads[b].bytes());
  }
  impl_->job.backend->synchronize();
}

void RankStepper::step() {
  const backend::OpCounts before = impl_->job.backend->op_counts();
  impl_->executor->step();
  impl_->last_operations = (impl_->job.backend->op_counts() - before).operations;
}

std::uint64_t RankStepper::last_step_operations() const { return impl_->last_operations; }

StepRecord RankStepper::last_step() {
  const exec::StepTimes times = impl_->executor->last_step_times();
  StepRecord record;
  record.total = times.total;
  std::copy(times.seconds.begin(), times.seconds.end(), record.slots.begin());
  return record;
}

double RankStepper::allocated_bytes() const {
  return static_cast<double>(impl_->executor->allocated_bytes());
}

bool RankStepper::next_step_refreshes() const {
  return impl_->refresh_interval > 1 && impl_->executor->steps() % impl_->refresh_interval == 0;
}

// ---------------------------------------------------------------------------------------------
// Projections

std::optional<double> project_here(StepJob& job, const CasePlan& plan,
                                   const std::string& topology) {
  StepJob::Impl& j = job.impl();
  if (j.projector_off) return std::nullopt;
  sim::ProjectionOptions options;
  if (!j.local_topology) {
    if (!j.device && j.host->size() > 1) {
      // MPI ranks on this machine: the topology is what its collectives measure, over the sizes
      // the steps of the scaled models a CPU runs move (their buckets are a few MiB).
      sim::LocalCalibrationOptions calibration;
      calibration.sizes = {16u << 10, 256u << 10, 4u << 20, 32u << 20};
      try {
        j.local_topology = sim::measure_local_topology(*j.host, calibration);
      } catch (const ConfigError& e) {
        // Every rank fitted the same (max over ranks) times, so every rank gets here: the
        // measurements stand, only the comparison with the projector is off.
        j.projector_off = true;
        if (j.host->rank() == 0) {
          std::fprintf(stderr, "warning: no projector_ms in this run: %s\n", e.what());
        }
        return std::nullopt;
      }
    } else {
      j.local_topology = sim::resolve_topology(topology);
    }
    j.cache = std::make_unique<sim::ComputeCache>(j.backend_name);
    j.compute =
        std::make_unique<sim::MeasuredCompute>(*j.backend, sim::MeasureOptions{}, j.cache.get());
  }
  // MPI runs an uneven reduce-scatter / all-gather as one direct exchange, which the padded model
  // describes; NCCL as grouped rooted collectives (the projector's default).
  if (!j.device) options.uneven = sim::UnevenCollectives::kPadded;
  const plan::StepPlan& p = plan.impl().plan;
  sim::project(p, *j.local_topology, *j.compute, options);  // measures what is missing
  agree_on_cache(*j.host, *j.cache);
  return sim::project(p, *j.local_topology, *j.compute, options).step_seconds;
}

namespace {

// Compute models of projected rows, one per (backend, topology) for the whole run.
sim::ComputeModel& scale_compute(const sim::Topology& topology, const std::string& backend) {
  static std::map<std::string, std::unique_ptr<sim::ComputeModel>> models;
  static std::unique_ptr<backend::Backend> device;
  static std::unique_ptr<sim::ComputeCache> cache;
  const std::string key = backend == "cuda" ? "cuda" : "cost_model/" + topology.name;
  auto& slot = models[key];
  if (slot) return *slot;
  if (backend == "cuda") {
    device = backend::make_backend("cuda");
    cache = std::make_unique<sim::ComputeCache>("cuda");
    slot = std::make_unique<sim::MeasuredCompute>(*device, sim::MeasureOptions{}, cache.get());
  } else {
    if (!topology.device) {
      throw ConfigError(fmt::format(
          "topology '{}' has no device profile, so projected rows cannot be costed on a CPU "
          "machine; add a \"device\" section or use a preset",
          topology.name));
    }
    slot = std::make_unique<sim::CostModelCompute>(*topology.device);
  }
  return *slot;
}

}  // namespace

ProjectedStep project_at_scale(const CasePlan& plan, const std::string& topology,
                               const std::string& backend) {
  const sim::Topology t = sim::resolve_topology(topology);
  sim::ComputeModel& compute = scale_compute(t, backend);
  const sim::Projection p = sim::project(plan.impl().plan, t, compute);
  ProjectedStep out;
  out.step_seconds = p.step_seconds;
  out.optimizer_seconds = p.optimizer_seconds;
  out.straggler_rank = p.straggler_rank;
  out.compute_imbalance = p.compute_imbalance;
  const sim::PhaseTimes& s = p.straggler.phases;
  out.straggler = {s.grad_sync,  s.tp_gather, s.compute,       s.tp_scatter,
                   s.param_sync, s.update,    p.straggler.idle};
  out.topology = t.name;
  out.compute = compute.kind() == "measured" ? "measured(" + backend + ")" : compute.kind();
  if (compute.kind() != "measured") out.gemm_efficiency = t.device->gemm_efficiency;
  return out;
}

void check_topology(const std::string& topology) { sim::resolve_topology(topology); }

namespace {

/// Elements of the plan's ZeRO-1 buffers (parameters, and gradients alike), padding included.
double buffer_elements(const plan::StepPlan& p) {
  double elements = 0;
  for (const layout::Buffer& b : p.layout.buffers) elements += static_cast<double>(b.total);
  return elements;
}

}  // namespace

double estimated_rank_bytes(const CasePlan& plan) {
  const plan::StepPlan& p = plan.impl().plan;
  const double buffers = buffer_elements(p);
  const auto full = [&](std::size_t m) {
    const optim::Shape& shape = p.matrices[m].full;
    return static_cast<double>(shape.rows) * static_cast<double>(shape.cols);
  };
  double largest_group = 0;  // full elements of the largest micro-group or TP-SC matrix
  for (const auto& groups : p.micro_groups) {
    for (const plan::MicroGroupPlan& group : groups) {
      double elements = 0;
      for (const auto& slot : group.slots) {
        for (const std::size_t m : slot) elements += full(m);
      }
      largest_group = std::max(largest_group, elements);
    }
  }
  // Full elements of the matrices the busiest rank steps: the optimizers' batched workspaces.
  double stepped = 0;
  for (int dp = 0; dp < p.dp(); ++dp) {
    for (int tp = 0; tp < p.tp(); ++tp) {
      double elements = 0;
      for (std::size_t m = 0; m < p.matrices.size(); ++m) {
        const plan::MatrixPlan& matrix = p.matrices[m];
        if ((matrix.dp_owner == -1 || matrix.dp_owner == dp) &&
            (matrix.tp_host == -1 || matrix.tp_host == tp)) {
          elements += full(m);
          if (matrix.tp_host == -1 && matrix.sharded()) {
            largest_group = std::max(largest_group, full(m));  // a TP-SC gather
          }
        }
      }
      stepped = std::max(stepped, elements);
    }
  }
  const double staging = 3 * 2 * largest_group + largest_group;  // ring of [grad, param] sets
  constexpr double kWorkspacePerElement = 8;  // Newton–Schulz iterates, eigensolver scratch
  // Model parameters and gradients in their types; fp32 main parameters of what the rank steps.
  const double buffer_bytes =
      buffers * static_cast<double>(comm::size_of(p.options.precision.params) +
                                    comm::size_of(p.options.precision.grad_reduce));
  return 1.1 * (buffer_bytes + 4 * (staging + stepped + kWorkspacePerElement * stepped) +
                plan.facts().state_bytes);
}

double kept_gradient_bytes(const CasePlan& plan) {
  const plan::StepPlan& p = plan.impl().plan;
  return buffer_elements(p) * static_cast<double>(comm::size_of(p.options.precision.grad_reduce));
}

double device_memory_bytes(const std::string& backend) {
  if (backend == "cuda") return static_cast<double>(cuda_total_memory_bytes(0));
  return 0;
}

int default_refresh_interval(const std::string& optimizer) {
  optim::OptimizerSpec spec;
  spec.kind = optim::parse_optimizer_kind(optimizer);
  if (spec.kind == optim::OptimizerKind::kAdamW) {
    throw ConfigError(
        "--canzona_optimizers: adamw has no step plan (it is the element-wise ZeRO-1 optimizer "
        "that every row runs on the non-matrix parameters); choose from muon, shampoo, soap");
  }
  return refresh_interval(spec);
}

void check_strategy(const std::string& strategy) {
  plan::StrategyOptions options;
  baselines::apply_strategy(strategy, options);
}

}  // namespace canzona::bench::step
