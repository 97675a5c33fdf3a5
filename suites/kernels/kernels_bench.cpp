// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Kernels suite: one optimizer step on one Qwen3 matrix shape, per optimizer and backend, with
// the achieved TFLOP/s (exact cost model of our implementation) and, measured in the same run on
// the same backend, the rate of the GEMM that dominates Newton–Schulz at that shape.
#include "kernel_shapes.hpp"
#include "step_timer.hpp"
#include "suite.hpp"
#include "suite_flags.hpp"

#include <canzona/backend/backend.hpp>
#include <canzona/bench/benchmark_name.hpp>
#include <canzona/core/device.hpp>
#include <canzona/core/error.hpp>
#include <canzona/core/synthetic_values.hpp>
#include <canzona/optim/cost_model.hpp>
#include <canzona/optim/matrix_optimizer.hpp>

#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace canzona::bench {
namespace {

struct KernelCase {
  std::string backend;
  optim::OptimizerKind optimizer;
  KernelShape shape;
};

// One backend per name for the whole run: creating a CUDA context per benchmark would dominate.
backend::Backend& shared_backend(const std::string& name) {
  static std::map<std::string, std::unique_ptr<backend::Backend>> backends;
  auto& slot = backends[name];
  if (!slot) slot = backend::make_backend(name);
  return *slot;
}

backend::Buffer random_buffer(backend::Backend& be, std::int64_t n, std::uint64_t seed) {
  std::vector<float> host(static_cast<std::size_t>(n));
  fill_synthetic_normal(host, synthetic_key(seed, 0), 1.0f);
  backend::Buffer buffer = be.allocate(host.size() * sizeof(float));
  be.upload(buffer.data(), host.data(), host.size() * sizeof(float));
  be.synchronize();
  return buffer;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The GEMM that dominates Newton–Schulz on a rows×cols matrix: the Gram product of the short
// side, [mn × mx]·[mx × mn], fp32 accumulation, operands and output in `type` (the precision
// the optimizer computes in, so the fraction compares like with like).
double gram_gemm_tflops(backend::Backend& be, const KernelShape& s, backend::ElementType type) {
  const std::int64_t mn = std::min(s.rows, s.cols);
  const std::int64_t mx = std::max(s.rows, s.cols);
  const std::size_t size = backend::element_size(type);
  backend::Buffer x = be.allocate(static_cast<std::size_t>(mn * mx) * size);
  backend::Buffer c = be.allocate(static_cast<std::size_t>(mn * mn) * size);
  backend::Buffer init = random_buffer(be, mn * mx, 7);
  be.convert(x.data(), type, init.data(), backend::ElementType::kFloat32, mn * mx);
  backend::GemmArgs gemm;
  gemm.trans_b = backend::Trans::kYes;
  gemm.m = mn;
  gemm.n = mn;
  gemm.k = mx;
  gemm.a = x.data();
  gemm.lda = mx;
  gemm.b = x.data();
  gemm.ldb = mx;
  gemm.c = c.data();
  gemm.ldc = mn;
  gemm.ab_type = type;
  gemm.c_type = type;
  be.gemm(gemm);  // warm-up
  StepTimer timer(be);
  std::vector<double> seconds;
  for (int i = 0; i < 5; ++i) {
    timer.start();
    be.gemm(gemm);
    seconds.push_back(timer.stop());
  }
  return 2.0 * static_cast<double>(mn) * static_cast<double>(mn) * static_cast<double>(mx) /
         median(seconds) / 1e12;
}

void bm_optimizer_step(benchmark::State& state, const KernelCase& c) {
  try {
    backend::Backend& be = shared_backend(c.backend);
    optim::OptimizerSpec spec;
    spec.kind = c.optimizer;
    const optim::StepCost cost = optim::step_cost(spec, c.shape.rows, c.shape.cols);
    const auto optimizer = optim::make_matrix_optimizer(spec, be);
    const auto matrix = optimizer->make_state(c.shape.rows, c.shape.cols);
    const std::int64_t n = c.shape.rows * c.shape.cols;
    backend::Buffer param = random_buffer(be, n, 1);
    backend::Buffer grad = random_buffer(be, n, 2);
    auto step = [&] { optimizer->step(*matrix, param.as<float>(), grad.as<const float>()); };
    // Warm-up outside the timed region: the first step (SOAP's update-free init, Shampoo's
    // first roots) and one more, so every workspace and library handle is initialised.
    step();
    step();
    be.synchronize();

    // Shampoo and SOAP alternate cheap steps with refresh steps; each timed step is filed
    // under the kind it was, so both are reported and the amortised mean follows exactly.
    const int interval = cost.refresh_interval;
    // Both refresh on the calls where the state has taken a multiple of k steps so far
    // (Shampoo: t = 1, 1+k, …; SOAP: t % k == 0 with its update-free first call counted).
    auto is_refresh = [&] { return interval > 1 && matrix->steps() % interval == 0; };
    std::vector<double> hot, refresh;
    // Backend operations of one step of each kind, counted in the Backend interface (the same
    // numbers on every backend), without the timer's own synchronisations.
    backend::OpCounts hot_ops, refresh_ops;
    auto counted_step = [&](bool refreshing) {
      const backend::OpCounts before = be.op_counts();
      step();
      (refreshing ? refresh_ops : hot_ops) = be.op_counts() - before;
    };
    StepTimer timer(be);
    for (auto _ : state) {
      const bool refreshing = is_refresh();
      timer.start();
      counted_step(refreshing);
      const double seconds = timer.stop();
      state.SetIterationTime(seconds);
      (refreshing ? refresh : hot).push_back(seconds);
    }
    // Make sure both kinds were seen at least once (outside the iteration count).
    while (hot.empty() || (interval > 1 && refresh.empty())) {
      const bool refreshing = is_refresh();
      timer.start();
      counted_step(refreshing);
      (refreshing ? refresh : hot).push_back(timer.stop());
    }
    optim::check_finite_gradients(*optimizer, "random gradient");

    const double hot_s = median(hot);
    const double refresh_s = interval > 1 ? median(refresh) : hot_s;
    const double mean_s = (hot_s * (interval - 1) + refresh_s) / interval;
    const double tflops = cost.mean_flops() / mean_s / 1e12;
    state.counters["step_ms"] = mean_s * 1e3;
    state.counters["hot_ms"] = hot_s * 1e3;
    state.counters["refresh_ms"] = refresh_s * 1e3;
    state.counters["tflops"] = tflops;
    if (spec.kind == optim::OptimizerKind::kMuon) {
      // Newton–Schulz is GEMMs, so its rate is judged against the GEMM it is made of. (Shampoo
      // and SOAP are dominated by eigensolvers, whose conventional FLOP counts make such a
      // fraction meaningless.)
      const backend::ElementType type = spec.muon.ns_precision == optim::NsPrecision::kBFloat16
                                            ? backend::ElementType::kBFloat16
                                            : backend::ElementType::kFloat32;
      const double gemm = gram_gemm_tflops(be, c.shape, type);
      state.counters["gemm_tflops"] = gemm;
      state.counters["gemm_fraction"] = tflops / gemm;
    }
    state.counters["state_mib"] = static_cast<double>(cost.state_bytes) / (1 << 20);
    state.counters["backend_ops"] = static_cast<double>(hot_ops.operations);
    state.counters["backend_ops_refresh"] =
        static_cast<double>(interval > 1 ? refresh_ops.operations : hot_ops.operations);
    state.counters["host_syncs"] = static_cast<double>(hot_ops.synchronizations);
    state.SetLabel(c.shape.first_use);
  } catch (const Error& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

void register_suite() {
  std::vector<std::string> backends = {"cpu"};
  if (cuda_device_count() > 0) backends.push_back("cuda");
  // A CPU step on the largest Qwen3 shapes takes minutes, so by default the CPU runs only the
  // shapes whose Muon step costs at most 50 GFLOP and the GPU runs all of them;
  // --canzona_max_gflop=X sets one limit for every backend (the smoke test keeps it tiny).
  const std::optional<double> max_gflop =
      suite_flag("max_gflop", RealRange{0, std::numeric_limits<double>::max()});
  const auto limit = [&](const std::string& be) {
    if (max_gflop) return *max_gflop;
    return be == "cpu" ? 50.0 : 1e300;
  };
  const std::vector<KernelShape> shapes = qwen3_kernel_shapes();
  for (const std::string& be : backends) {
    for (const optim::OptimizerKind kind :
         {optim::OptimizerKind::kMuon, optim::OptimizerKind::kShampoo, optim::OptimizerKind::kSoap,
          optim::OptimizerKind::kAdamW}) {
      for (const KernelShape& shape : shapes) {
        optim::OptimizerSpec muon;
        const double gflop = optim::step_cost(muon, shape.rows, shape.cols).mean_flops() / 1e9;
        if (gflop > limit(be)) continue;
        const std::string name = kernels_name(optim::to_string(kind), be, shape.rows, shape.cols);
        if (!case_selected(name)) continue;
        benchmark::RegisterBenchmark(name.c_str(), bm_optimizer_step, KernelCase{be, kind, shape})
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

}  // namespace canzona::bench
