// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Compute-time sources: cost model over a device profile, and measurement on a local backend.
#include "canzona/sim/compute_model.hpp"

#include <canzona/core/error.hpp>
#include <canzona/core/synthetic_values.hpp>
#include <canzona/core/thread_cpu_time.hpp>
#include <canzona/io/atomic_file.hpp>
#include <canzona/io/input_file.hpp>
#include <canzona/io/json_text.hpp>
#include <canzona/optim/cost_model.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <unistd.h>

namespace canzona::sim {
namespace {

// Bytes each element crosses HBM with in the fused element-wise kernels of one step (reads +
// writes, fp32 unless noted), see compute_model.hpp.
double elementwise_bytes(optim::OptimizerKind kind) {
  switch (kind) {
    case optim::OptimizerKind::kMuon:
      return 36;  // momentum 14 (bf16 out), finite 4, sum_squares 2, normalize 4, update 10, …
    case optim::OptimizerKind::kShampoo:
    case optim::OptimizerKind::kSoap:
      return 60;  // finite, EMA, EMA², direction / division, norms, update
    case optim::OptimizerKind::kAdamW:
      break;
  }
  return 28;  // read p, g, m, v; write p, m, v
}

std::string dtype_of(const optim::OptimizerSpec& spec) {
  return spec.kind == optim::OptimizerKind::kMuon
             ? std::string(optim::to_string(spec.muon.ns_precision))
             : std::string("fp32");
}

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown";
  return buffer;
}

}  // namespace

std::string_view to_string(ComputeClock clock) {
  return clock == ComputeClock::kWall ? "wall" : "thread_cpu";
}

std::string compute_key(const optim::OptimizerSpec& spec, optim::Shape shape, ComputeClock clock) {
  std::string settings;
  switch (spec.kind) {
    case optim::OptimizerKind::kMuon:
      settings = fmt::format("ns={}", spec.muon.ns_steps);
      break;
    case optim::OptimizerKind::kShampoo:
      settings =
          fmt::format("f={},d={}", spec.shampoo.refresh_interval, spec.shampoo.max_precond_dim);
      break;
    case optim::OptimizerKind::kSoap:
      settings = fmt::format("f={},d={}{}", spec.soap.precondition_frequency,
                             spec.soap.max_precond_dim, spec.soap.normalize_grads ? ",norm" : "");
      break;
    case optim::OptimizerKind::kAdamW:
      break;
  }
  const std::string dtype = dtype_of(spec);
  return fmt::format("{}[{}{}{}]/{}x{}{}", optim::to_string(spec.kind), settings,
                     settings.empty() ? "" : ",", dtype, shape.rows, shape.cols,
                     clock == ComputeClock::kWall ? "" : "@thread_cpu");
}

// ---- cost model ------------------------------------------------------------------------------

std::string memory_pass_key(ComputeClock clock) {
  return fmt::format("memory_pass[axpby,fp32]/{}{}", MeasuredCompute::kMemoryPassElements,
                     clock == ComputeClock::kWall ? "" : "@thread_cpu");
}

CostModelCompute::CostModelCompute(DeviceProfile device) : device_(std::move(device)) {}

double CostModelCompute::memory_pass_seconds(double bytes) {
  return bytes / (device_.hbm_gbps * 1e9);
}

double CostModelCompute::step_seconds(const optim::OptimizerSpec& spec, optim::Shape shape) {
  const optim::StepCost cost = optim::step_cost(spec, shape.rows, shape.cols);
  const double elements = static_cast<double>(shape.rows) * static_cast<double>(shape.cols);
  const double hbm = device_.hbm_gbps * 1e9;
  if (spec.kind == optim::OptimizerKind::kAdamW) {
    return std::max(cost.hot_flops / (device_.fp32_tflops * 1e12),
                    elements * elementwise_bytes(spec.kind) / hbm);
  }
  const bool bf16 = spec.kind == optim::OptimizerKind::kMuon &&
                    spec.muon.ns_precision == optim::NsPrecision::kBFloat16;
  const double gemm_rate =
      (bf16 ? device_.bf16_tflops : device_.fp32_tflops) * 1e12 * device_.gemm_efficiency;
  return cost.hot_flops / gemm_rate +
         cost.refresh_flops / cost.refresh_interval / (device_.solver_tflops * 1e12) +
         elements * elementwise_bytes(spec.kind) / hbm + device_.step_overhead_us * 1e-6;
}

std::string CostModelCompute::description() const {
  return fmt::format(
      "cost-model FLOPs / assumed rate ({}: bf16 {:.1f} / fp32 {:.1f} TFLOP/s x {:.0f}% GEMM "
      "efficiency, solver {:.1f} TFLOP/s, HBM {:.0f} GB/s, {:.0f} us per matrix step)",
      device_.name, device_.bf16_tflops, device_.fp32_tflops, 100 * device_.gemm_efficiency,
      device_.solver_tflops, device_.hbm_gbps, device_.step_overhead_us);
}

// ---- cache -----------------------------------------------------------------------------------

void ComputeCache::load(const std::filesystem::path& path) {
  // A cache that does not exist yet is created by save(); anything else at the path must be one.
  std::error_code missing;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, missing))) return;
  merge_text(io::read_input_file(path, "compute cache"), path.string());
}

void ComputeCache::merge_text(std::string_view text, const std::string& source) {
  const nlohmann::json json =
      io::parse_json_text(text, fmt::format("compute cache {}", source), "delete it to re-measure");
  if (!json.is_object() || !json.contains("format") || !json["format"].is_string() ||
      json["format"].get<std::string>() != "canzona-compute-cache" || !json.contains("entries") ||
      !json["entries"].is_object()) {
    throw ConfigError(
        fmt::format("compute cache {}: not a canzona compute cache (expected \"format\": "
                    "\"canzona-compute-cache\" and an \"entries\" object); delete it to re-measure",
                    source));
  }
  const std::string backend = json.contains("backend") && json["backend"].is_string()
                                  ? json["backend"].get<std::string>()
                                  : std::string();
  if (backend != backend_) {
    throw ConfigError(fmt::format(
        "compute cache {}: measured on the '{}' backend, but this projection measures on '{}'; "
        "use another cache file",
        source, backend, backend_));
  }
  for (const auto& [key, value] : json["entries"].items()) {
    // Seconds of one step: finite, >= 0, and below an hour (a larger value is a corrupt entry,
    // and would make every projection that uses it meaningless).
    if (!value.is_number() || !(value.get<double>() >= 0) || !(value.get<double>() <= 3600)) {
      throw ConfigError(fmt::format(
          "compute cache {}: entry '{}' must be a number of seconds in [0, 3600], got {}; delete "
          "the file to re-measure",
          source, key, value.dump()));
    }
    entries_[key] = value.get<double>();
  }
}

void ComputeCache::save(const std::filesystem::path& path) const {
  nlohmann::json json = {{"format", "canzona-compute-cache"},
                         {"version", 1},
                         {"backend", backend_},
                         {"host", host_name()},
                         {"entries", entries_}};
  io::write_file_atomically(path, json.dump(2) + "\n");
}

const double* ComputeCache::find(const std::string& key) const {
  const auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

// ---- measurement -----------------------------------------------------------------------------

MeasuredCompute::MeasuredCompute(backend::Backend& backend, MeasureOptions options,
                                 ComputeCache* cache)
    : backend_(backend),
      options_(options),
      own_cache_(std::string(backend.name())),
      cache_(cache != nullptr ? cache : &own_cache_) {
  if (options_.steps < 1 || options_.warmup_steps < 0) {
    throw ConfigError(
        fmt::format("compute measurement: steps must be >= 1 and warm-up >= 0, got "
                    "{} and {}",
                    options_.steps, options_.warmup_steps));
  }
  if (cache_->backend() != backend.name()) {
    throw ConfigError(fmt::format("compute cache is for the '{}' backend, not '{}'",
                                  cache_->backend(), backend.name()));
  }
  if (options_.clock == ComputeClock::kThreadCpu && !host_backend()) {
    throw ConfigError(fmt::format(
        "compute measurement: the thread CPU clock counts host work only; the '{}' backend runs "
        "its steps on a GPU (measure on the wall clock there)",
        backend.name()));
  }
}

double MeasuredCompute::step_seconds(const optim::OptimizerSpec& spec, optim::Shape shape) {
  return cached([&](ComputeClock clock) { return compute_key(spec, shape, clock); },
                [&] { return measure(spec, shape); });
}

double MeasuredCompute::memory_pass_seconds(double bytes) {
  // In place, as the gradient average (y ← y / dp): 4 bytes read and 4 written per element.
  const double measured_bytes = 8.0 * static_cast<double>(kMemoryPassElements);
  return bytes / measured_bytes *
         cached([](ComputeClock clock) { return memory_pass_key(clock); },
                [&] { return measure_memory_pass(); });
}

double MeasuredCompute::cached(const std::function<std::string(ComputeClock)>& key,
                               const std::function<Seconds()>& run) {
  const std::string wanted = key(options_.clock);
  if (const double* hit = cache_->find(wanted)) return *hit;
  const Seconds seconds = run();
  cache_->insert(key(ComputeClock::kWall), seconds.wall);
  if (host_backend()) cache_->insert(key(ComputeClock::kThreadCpu), seconds.thread_cpu);
  ++measurements_;
  const double answer = options_.clock == ComputeClock::kWall ? seconds.wall : seconds.thread_cpu;
  if (options_.on_measured) options_.on_measured(wanted, answer, measurements_);
  return answer;
}

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace

MeasuredCompute::Seconds MeasuredCompute::measure(const optim::OptimizerSpec& spec,
                                                  optim::Shape shape) {
  const auto optimizer = optim::make_matrix_optimizer(spec, backend_);
  const auto state = optimizer->make_state(shape.rows, shape.cols);
  const auto n = static_cast<std::size_t>(shape.rows * shape.cols);
  backend::Buffer param = backend_.allocate(n * sizeof(float));
  backend::Buffer grad = backend_.allocate(n * sizeof(float));
  std::vector<float> host(n);
  fill_synthetic_normal(host, synthetic_key(options_.seed, 0), 0.02f);
  backend_.upload(param.data(), host.data(), n * sizeof(float));
  fill_synthetic_normal(host, synthetic_key(options_.seed, 1), 0.02f);
  backend_.upload(grad.data(), host.data(), n * sizeof(float));
  backend_.synchronize();

  for (int i = 0; i < options_.warmup_steps; ++i) {
    optimizer->step(*state, param.as<float>(), grad.as<const float>());
  }
  backend_.synchronize();
  // Windows of one refresh interval each carry exactly one refresh, so a window's mean is the
  // amortised step.
  const int interval = optim::step_cost(spec, shape.rows, shape.cols).refresh_interval;
  return time_windows((options_.steps + interval - 1) / interval, interval,
                      [&] { optimizer->step(*state, param.as<float>(), grad.as<const float>()); });
}

MeasuredCompute::Seconds MeasuredCompute::time_windows(int windows, int runs_per_window,
                                                       const std::function<void()>& run) {
  // The median over windows shrugs off a window disturbed by other processes.
  std::vector<double> wall;
  std::vector<double> thread_cpu;
  for (int w = 0; w < windows; ++w) {
    const double cpu_start = thread_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < runs_per_window; ++i) run();
    backend_.synchronize();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    wall.push_back(elapsed.count() / runs_per_window);
    thread_cpu.push_back((thread_cpu_seconds() - cpu_start) / runs_per_window);
  }
  return {median(std::move(wall)), host_backend() ? median(std::move(thread_cpu)) : 0.0};
}

MeasuredCompute::Seconds MeasuredCompute::measure_memory_pass() {
  const auto n = static_cast<std::size_t>(kMemoryPassElements);
  backend::Buffer y = backend_.allocate(n * sizeof(float));
  std::vector<float> host(n);
  fill_synthetic_normal(host, synthetic_key(options_.seed, 2), 0.02f);
  backend_.upload(y.data(), host.data(), n * sizeof(float));
  // y ← −y: the values neither decay into denormals nor grow, however many passes run.
  const auto pass = [&] {
    backend_.axpby(y.data(), y.data(), backend::ElementType::kFloat32, kMemoryPassElements, -1.0f,
                   0.0f);
  };
  for (int i = 0; i < std::max(1, options_.warmup_steps); ++i) pass();
  backend_.synchronize();
  return time_windows(options_.steps, 1, pass);
}

std::string MeasuredCompute::description() const {
  return fmt::format(
      "measured on the {} backend ({} clock; median over {} timed steps per shape, refreshes "
      "amortised per interval, after {} warm-up)",
      backend_.name(), to_string(options_.clock), options_.steps, options_.warmup_steps);
}

ComputeSource cost_model_source(const Topology& topology, double gemm_efficiency,
                                std::string_view remedy) {
  if (!topology.device) {
    throw ConfigError(
        fmt::format("topology '{}' has no device profile; {}", topology.name, remedy));
  }
  DeviceProfile device = *topology.device;
  if (gemm_efficiency > 0) device.gemm_efficiency = gemm_efficiency;
  ComputeSource source;
  source.model = std::make_unique<CostModelCompute>(device);
  return source;
}

ComputeSource measured_source(const std::string& backend_name, MeasureOptions options,
                              const std::string& cache_file) {
  ComputeSource source;
  source.backend = backend::make_backend(backend_name);
  source.cache = std::make_unique<ComputeCache>(backend_name);
  if (!cache_file.empty()) source.cache->load(cache_file);
  source.model =
      std::make_unique<MeasuredCompute>(*source.backend, std::move(options), source.cache.get());
  return source;
}

}  // namespace canzona::sim
