// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The executor on the cuda backend with NCCL communicators (stream ordering + CUDA-event timer,
// picked by default) against the cpu backend's single-process reference, 5 steps, Muon (fp32
// and bf16 Newton–Schulz), Shampoo and SOAP, strategies canzona and sc, within DESIGN §3's
// budgets. Skips without a GPU; fails under CANZONA_REQUIRE_GPU=1.
//
// One rank only: NcclCommunicator::create_local needs one distinct device per rank (NCCL
// refuses two ranks on one GPU), and the GPU machines of this project have one GPU, so the job
// is world = dp = tp = 1. Groups of one rank issue no collective, so this checks the cuda
// kernels, copies and the executor's stream ordering and timer on one device; the multi-rank
// NCCL paths (collectives ordered by events across the backend and NCCL streams) need a
// multi_gpu run (mpirun, one process per GPU), which is not covered here.
#include <canzona/backend/backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/comm/nccl_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/exec/trace_check.hpp>
#include <canzona/testing/gpu.hpp>
#include <canzona/testing/seed.hpp>

#include "exec_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace {

using canzona::exec::Executor;
using canzona::optim::NsPrecision;
using canzona::optim::OptimizerKind;
namespace backend = canzona::backend;
namespace comm = canzona::comm;
namespace exec = canzona::exec;
namespace plan = canzona::plan;
namespace et = canzona::exec::testing;

constexpr int kSteps = 5;

// One optimizer configuration and its budget: ||gpu − reference||_F / ||reference − initial||_F
// per parameter (the relative error of the parameter's movement). The fp32 budgets are lib/optim's
// GPU-test budgets (matrix_optimizer_gpu_test.cpp: cuBLAS / cuSOLVER summation orders, fp32
// GEMMs without TF32); bf16 Newton–Schulz compares two bf16 runs here, not bf16 against double as
// lib/optim does, so its 3e-2 is tighter than lib/optim's 1e-1 (an H200 passed it); AdamW
// parameters use its AdamW budget.
struct Case {
  std::string label;
  OptimizerKind kind;
  NsPrecision ns = NsPrecision::kFloat32;
  double budget = 0;
};

const Case kCases[] = {
    {"muon_fp32_ns", OptimizerKind::kMuon, NsPrecision::kFloat32, 1e-4},
    {"muon_bf16_ns", OptimizerKind::kMuon, NsPrecision::kBFloat16, 3e-2},
    {"shampoo", OptimizerKind::kShampoo, NsPrecision::kFloat32, 5e-4},
    {"soap", OptimizerKind::kSoap, NsPrecision::kFloat32, 5e-4},
};
constexpr double kAdamWBudget = 1e-5;

// The cpu tests of this executor compare bit for bit, where conditioning does not matter; this
// one compares two fp32 implementations, so Shampoo and SOAP run in the regime where their
// result is a function of the input and not of round-off (lib/optim's tests, which measure the
// same): Shampoo's root epsilon 1e-3 (the long side's statistic starts rank deficient, and with
// 1e-12 its null space is amplified round-off), SOAP's epsilon 1e-3 and only the short side of
// a non-square matrix preconditioned (the long side's starts rank deficient, and SOAP's update
// depends on the basis chosen inside that degenerate null space). An H200 with the defaults
// measured 0.23 (Shampoo) and 0.31-0.48 (SOAP) on every non-square matrix, 1e-2 / pass on the
// square one.
void condition_for_two_implementations(canzona::optim::OptimizerSpec& spec) {
  spec.shampoo.epsilon = 1e-3;
  spec.soap.eps = 1e-3;
  spec.soap.max_precond_dim = et::tiny_qwen3().hidden_size;  // every matrix's short side
}

// Test names and ctest listings show the label, not the struct's bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.label; }

class ExecutorGpuTest : public canzona::testing::OneGpuTest,
                        public ::testing::WithParamInterface<Case> {
 protected:
  void SetUp() override {
    canzona::testing::OneGpuTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const std::array<int, 1> devices = {0};
    auto comms = comm::NcclCommunicator::create_local(devices);
    ASSERT_EQ(comms.size(), 1U);
    world_ = std::move(comms[0]);
    groups_ = comm::split_dp_tp(*world_, 1);
    be_ = backend::make_backend("cuda");
  }
  void TearDown() override {
    be_.reset();
    for (auto* c : {groups_.tp.get(), groups_.dp.get()}) {
      if (c != nullptr) static_cast<comm::NcclCommunicator&>(*c).finalize();
    }
    if (world_) world_->finalize();
  }

  std::unique_ptr<comm::NcclCommunicator> world_;
  comm::ProcessGroups groups_;
  std::unique_ptr<backend::Backend> be_;
};

// Writes every entry of the executor's buffers from value(param, reference index) (tp = 1: the
// local tensor is the reference tensor, element i is index i); padding stays zero.
template <typename Value>
void upload(backend::Backend& be, const Executor& executor, bool grads, Value value) {
  et::upload_buffers(be, executor, grads, [&](std::size_t b, std::size_t e, std::int64_t i) {
    return value(executor.plan().layout.buffers[b].entries[e].param_index, i);
  });
}

TEST_P(ExecutorGpuTest, MatchesTheCpuSingleProcessRunWithinBudget) {
  const Case& c = GetParam();
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  ASSERT_TRUE(exec::uses_device_streams(*be_, *groups_.dp, *groups_.tp))
      << "cuda + NCCL should default to the stream ordering and the event timer";
  for (const et::Scenario& scenario : et::scenarios()) {
    if (scenario.label != "canzona" && scenario.label != "sc") continue;
    SCOPED_TRACE(scenario.label);
    plan::StrategyOptions options = et::options_for(scenario, c.kind);
    options.optimizer.muon.ns_precision = c.ns;
    condition_for_two_implementations(options.optimizer);
    Executor executor(canzona::baselines::make_step_plan(et::tiny_qwen3(), {1, 1, 8}, options),
                      *world_, *groups_.dp, *groups_.tp, *be_);
    const plan::StepPlan& p = executor.plan();

    et::Reference reference(et::tiny_qwen3(), p, seed);
    for (int s = 0; s < kSteps; ++s) reference.step(s);

    upload(*be_, executor, /*grads=*/false, [&](std::size_t param, std::int64_t index) {
      return et::init_value(seed, param, index);
    });
    for (int s = 0; s < kSteps; ++s) {
      upload(*be_, executor, /*grads=*/true, [&](std::size_t param, std::int64_t index) {
        return et::grad_value(seed, s, 0, param, index);
      });
      groups_.dp->clear_trace();
      groups_.tp->clear_trace();
      executor.step();
      EXPECT_EQ(exec::trace_mismatch(p, 0, 0, groups_.dp->trace(), groups_.tp->trace()), "")
          << "step " << s;
    }

    // The event timer: every slot non-negative, compute seen, phases within the step.
    const exec::StepTimes times = executor.last_step_times();
    EXPECT_GT(times.total, 0.0);
    EXPECT_GT(times[exec::TimerSlot::kCompute], 0.0);
    double phases = 0;
    for (std::size_t i = 0; i < exec::kTimerSlots; ++i) {
      EXPECT_GE(times.seconds[i], 0.0) << exec::to_string(static_cast<exec::TimerSlot>(i));
      if (static_cast<exec::TimerSlot>(i) != exec::TimerSlot::kIdle) phases += times.seconds[i];
    }
    EXPECT_LE(phases, times.total * 1.01 + 1e-6);

    // Every fragment stepped once by the matrix optimizer, every other parameter by AdamW.
    for (const exec::OptimizerUsage& u : executor.usage()) {
      if (u.matrix >= 0) {
        EXPECT_EQ(u.steps_of(c.kind), 1) << u.name;
        EXPECT_EQ(u.steps_of(OptimizerKind::kAdamW), 0) << u.name << " silently got AdamW";
      } else {
        EXPECT_GE(u.steps_of(OptimizerKind::kAdamW), 1) << u.name;
        EXPECT_EQ(u.steps_of(c.kind), 0) << u.name << " got the matrix optimizer";
      }
    }

    // The fp32 main parameters (one rank steps everything) against the cpu reference.
    for (const exec::MainRange& range : executor.main_params()) {
      const std::vector<float> host = et::download_main(*be_, range);
      for (const canzona::layout::BufferEntry& e : p.layout.buffers[range.buffer].entries) {
        if (e.start < range.begin || e.end > range.end) continue;
        const std::vector<float>& want = reference.values(e.param_index);
        ASSERT_EQ(static_cast<std::int64_t>(want.size()), e.numel()) << e.name;
        double diff = 0;
        double moved = 0;
        bool finite = true;
        for (std::int64_t i = 0; i < e.numel(); ++i) {
          const double got = host[static_cast<std::size_t>(e.start - range.begin + i)];
          const double ref = want[static_cast<std::size_t>(i)];
          const double init = et::init_value(seed, e.param_index, i);
          finite = finite && std::isfinite(got);
          diff += (got - ref) * (got - ref);
          moved += (ref - init) * (ref - init);
        }
        EXPECT_TRUE(finite) << e.name;
        const double budget = e.matrix ? c.budget : kAdamWBudget;
        const double rel = std::sqrt(diff) / std::max(std::sqrt(moved), 1e-30);
        EXPECT_LE(rel, budget) << e.name << ": ||gpu - cpu|| / ||cpu - initial|| (rtol " << budget
                               << ")";
      }
    }
  }
}

// Steps for a profiler: each wrapped in an NVTX range "canzona.step", which ci/gpu-check.sh's
// nsys pass searches for host-blocking CUDA calls (target: none). Here, the backend-level part
// of that target: with the stream ordering a step asks the backend for no host synchronisation.
using ExecutorGpuProfile = ExecutorGpuTest;

TEST_F(ExecutorGpuProfile, StepsEnqueueWithoutHostSynchronisation) {
  const std::uint64_t seed = canzona::testing::test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  plan::StrategyOptions options = et::options_for(et::scenarios().front(), OptimizerKind::kMuon);
  Executor executor(canzona::baselines::make_step_plan(et::tiny_qwen3(), {1, 1, 8}, options),
                    *world_, *groups_.dp, *groups_.tp, *be_);
  upload(*be_, executor, /*grads=*/false,
         [&](std::size_t param, std::int64_t index) { return et::init_value(seed, param, index); });
  for (int s = 0; s < 2 * kSteps; ++s) {
    upload(*be_, executor, /*grads=*/true, [&](std::size_t param, std::int64_t index) {
      return et::grad_value(seed, s, 0, param, index);
    });
    const backend::OpCounts before = be_->op_counts();
    nvtxRangePushA("canzona.step");
    executor.step();
    nvtxRangePop();
    const backend::OpCounts step = be_->op_counts() - before;
    EXPECT_EQ(step.synchronizations, 0U) << "step " << s;
    EXPECT_EQ(step.allocations, 0U) << "step " << s << " allocated";
  }
  be_->synchronize();
}

INSTANTIATE_TEST_SUITE_P(Optimizers, ExecutorGpuTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return param_info.param.label;
                         });

}  // namespace
