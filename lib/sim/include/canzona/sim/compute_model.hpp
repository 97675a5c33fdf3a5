// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// How long one optimizer step of one matrix takes on a projected rank. Two sources, always named
// in outputs: MEASURED on a local backend (cpu or cuda; what a projection onto this machine
// uses) and COST MODEL (optim::step_cost FLOPs divided by a device profile's assumed rates; what a
// projection onto a GPU cluster we do not have uses). Measurements are cached by (optimizer and
// its cost-relevant settings, shape, dtype) in memory and optionally in a JSON file.
#pragma once

#include "canzona/sim/topology.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/optim/matrix_optimizer.hpp>
#include <canzona/optim/options.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace canzona::sim {

/// Steady-state seconds per optimizer step of a rows×cols matrix.
class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  ComputeModel() = default;
  ComputeModel(const ComputeModel&) = delete;
  ComputeModel& operator=(const ComputeModel&) = delete;

  /// Mean seconds of one step of `spec` on a `shape` matrix, refreshes (Shampoo roots, SOAP
  /// eigenbases) amortised over their interval. AdamW slices are passed as [1, n].
  virtual double step_seconds(const optim::OptimizerSpec& spec, optim::Shape shape) = 0;
  /// Seconds of the executor's element-wise passes outside the optimizer kernels (the gradient
  /// average, the casts between main and model parameters, the layer-wise staging copies) that
  /// read and write `bytes` bytes in all: memory bound, so linear in the bytes.
  virtual double memory_pass_seconds(double bytes) = 0;
  /// "measured" or "cost_model".
  virtual std::string kind() const = 0;
  /// One line for outputs: "measured on the cpu backend (...)", or
  /// "cost-model FLOPs / assumed rate (H100 SXM5 80GB: ...)".
  virtual std::string description() const = 0;
};

/// What the seconds of a measured step count.
enum class ComputeClock {
  /// The host clock around the synchronised steps: what a step takes here, including the time
  /// other processes hold the core (the median over windows leaves most of that out).
  kWall,
  /// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID): what the step's own work costs,
  /// whatever else runs. Host backends only (a GPU's work is not on the host thread), and only
  /// with one BLAS thread (other threads' work is not on the calling thread's clock).
  kThreadCpu,
};
std::string_view to_string(ComputeClock clock);  ///< "wall", "thread_cpu"

/// The cache key: optimizer, the settings its cost depends on, shape and NS/storage dtype, e.g.
/// "muon[ns=5,bf16]/1280x5120" or "shampoo[f=10,d=8192,fp32]/5120x5120"; on the thread CPU
/// clock the same with "@thread_cpu" appended (one cache holds both clocks of a measurement).
std::string compute_key(const optim::OptimizerSpec& spec, optim::Shape shape,
                        ComputeClock clock = ComputeClock::kWall);
/// The cache key of the memory-pass measurement (MeasuredCompute):
/// "memory_pass[axpby,fp32]/4194304", with "@thread_cpu" on that clock.
std::string memory_pass_key(ComputeClock clock = ComputeClock::kWall);

/// Time from optim::step_cost and a DeviceProfile (a roofline per step):
///   hot GEMM FLOPs / (peak × gemm_efficiency)   (bf16 peak for Muon with bf16 Newton–Schulz,
///                                                 fp32 peak otherwise)
/// + refresh FLOPs / interval / solver_tflops     (eigh / QR / their GEMMs, all at solver rate)
/// + element-wise bytes / HBM bandwidth           (per-optimizer bytes per element, below)
/// + step_overhead_us                             (launches; matrix optimizers only)
/// AdamW is memory bound: max(FLOPs / fp32 peak, 28 bytes per element / HBM bandwidth).
/// The element-wise bytes per element (reads + writes of the fused kernels in backend.hpp):
/// Muon 36, Shampoo 60, SOAP 60, AdamW 28. Memory passes: bytes / HBM bandwidth.
class CostModelCompute final : public ComputeModel {
 public:
  explicit CostModelCompute(DeviceProfile device);
  double step_seconds(const optim::OptimizerSpec& spec, optim::Shape shape) override;
  double memory_pass_seconds(double bytes) override;
  std::string kind() const override { return "cost_model"; }
  std::string description() const override;
  const DeviceProfile& device() const { return device_; }

 private:
  DeviceProfile device_;
};

/// Seconds per key, with an optional JSON file behind it:
/// {"format": "canzona-compute-cache", "version": 1, "backend": "cpu", "host": "...",
///  "entries": {"muon[ns=5,bf16]/1280x5120": 0.0123, ...}}.
/// Entries are only meaningful for the backend and machine that measured them; load() refuses a
/// file measured on another backend.
class ComputeCache {
 public:
  explicit ComputeCache(std::string backend) : backend_(std::move(backend)) {}
  /// Merges the entries of `path` if it exists. ConfigError for malformed JSON or another backend.
  void load(const std::filesystem::path& path);
  /// Merges the entries of a cache file's text; `source` names it in errors. ConfigError for
  /// malformed JSON, another backend or an entry that is not seconds in [0, 3600].
  void merge_text(std::string_view text, const std::string& source);
  /// Writes every entry atomically (temp file + rename). ConfigError when the directory is
  /// missing or not writable.
  void save(const std::filesystem::path& path) const;
  const double* find(const std::string& key) const;
  void insert(const std::string& key, double seconds) { entries_[key] = seconds; }
  void clear() { entries_.clear(); }
  std::size_t size() const { return entries_.size(); }
  const std::string& backend() const { return backend_; }
  const std::map<std::string, double>& entries() const { return entries_; }

 private:
  std::string backend_;
  std::map<std::string, double> entries_;
};

/// Settings of a measurement.
struct MeasureOptions {
  /// Timed steps per shape, rounded up to whole refresh intervals (windows).
  int steps = 5;
  /// Untimed steps first (SOAP's update-free first step, caches, OpenBLAS thread start).
  int warmup_steps = 1;
  std::uint64_t seed = 0x5eed;  ///< parameter and gradient values (normal, scaled)
  /// Called after each shape is measured (not for cache hits) with its compute_key, the mean
  /// seconds per step and the number of shapes measured so far: progress for runs that measure
  /// for minutes.
  std::function<void(const std::string& key, double seconds, int measured)> on_measured;
  /// The clock step_seconds answers on. A measurement on a host backend records both clocks in
  /// the cache, so a second MeasuredCompute on the other clock over the same cache measures
  /// nothing again.
  ComputeClock clock = ComputeClock::kWall;
};

/// Times MatrixOptimizer::step on the backend: one state per shape, random parameter and
/// gradient, warm-up, then `steps` steps in windows of one refresh interval, each window between
/// two backend synchronisations (host clock around the synchronised region: for cuda this
/// includes launch gaps, as a real step does; on a host backend the thread's CPU time too); the
/// result is the median window mean on each clock. Results go to the cache; a key already in the
/// cache is never re-measured. ConfigError for the thread CPU clock on a GPU backend. Memory
/// passes: the seconds per byte of an in-place fp32 axpby over kMemoryPassElements elements (the
/// gradient average, the largest of the passes), timed the same way, cached under
/// memory_pass_key().
class MeasuredCompute final : public ComputeModel {
 public:
  static constexpr std::int64_t kMemoryPassElements = std::int64_t{1} << 22;  // 16 MiB of fp32

  /// `backend` and `cache` (may be null: a private in-memory cache) must outlive this object.
  MeasuredCompute(backend::Backend& backend, MeasureOptions options, ComputeCache* cache = nullptr);
  double step_seconds(const optim::OptimizerSpec& spec, optim::Shape shape) override;
  double memory_pass_seconds(double bytes) override;
  std::string kind() const override { return "measured"; }
  std::string description() const override;
  /// Keys measured by this object (not found in the cache).
  int measurements() const { return measurements_; }

 private:
  struct Seconds {
    double wall = 0;
    double thread_cpu = 0;  ///< 0 on a GPU backend (not measured)
  };
  Seconds measure(const optim::OptimizerSpec& spec, optim::Shape shape);
  Seconds measure_memory_pass();
  /// `windows` windows of `runs_per_window` calls of `run`, each window between two backend
  /// synchronisations: the median window's seconds per call on each clock.
  Seconds time_windows(int windows, int runs_per_window, const std::function<void()>& run);
  /// The cache's answer for `key` on this clock, else `run` timed and both clocks cached.
  double cached(const std::function<std::string(ComputeClock)>& key,
                const std::function<Seconds()>& run);
  bool host_backend() const { return backend_.device() < 0; }

  backend::Backend& backend_;
  MeasureOptions options_;
  ComputeCache own_cache_;
  ComputeCache* cache_;
  int measurements_ = 0;
};

/// A compute model with what it runs on. The one place that chooses between the two kinds:
/// the cost model of a topology's device profile, or steps measured on a backend of its own.
struct ComputeSource {
  std::unique_ptr<backend::Backend> backend;  ///< measured: where the steps run
  std::unique_ptr<ComputeCache> cache;        ///< measured: what was measured so far
  std::unique_ptr<ComputeModel> model;
};

/// The cost model of `topology`'s device profile, at `gemm_efficiency` when it is > 0.
/// ConfigError when the topology has no profile: "<topology name> has no device profile; " +
/// `remedy`.
ComputeSource cost_model_source(const Topology& topology, double gemm_efficiency,
                                std::string_view remedy);

/// Steps measured on a new backend `backend_name` ("cpu" or "cuda"), cached in memory (merged
/// with `cache_file` when it is not empty).
ComputeSource measured_source(const std::string& backend_name, MeasureOptions options,
                              const std::string& cache_file = "");

}  // namespace canzona::sim
