// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The executor under mpiexec (1, 2, 4, 8 ranks; each run takes the (dp, tp) configs whose
// product is the world size): every strategy × Muon / Shampoo / SOAP equals the single-process
// reference BITWISE after 5 steps (exact synthetic gradients; OPENBLAS_NUM_THREADS=1 is set by
// CTest so every GEMM is deterministic), each step's DP and TP traces equal
// plan::rank_collectives, the usage record shows every fragment stepped by the matrix optimizer
// exactly once per owning TP group and every other parameter by AdamW, phase timers add up,
// and bad start-ups fail on every rank with a clear error instead of hanging.
#include <canzona/backend/cpu_backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/core/error.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/exec/trace_check.hpp>
#include <canzona/testing/seed.hpp>

#include "exec_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using canzona::ConfigError;
using canzona::exec::Executor;
using canzona::optim::OptimizerKind;
using canzona::testing::test_seed;
namespace backend = canzona::backend;
namespace comm = canzona::comm;
namespace exec = canzona::exec;
namespace plan = canzona::plan;
namespace et = canzona::exec::testing;

constexpr int kSteps = 5;

struct Config {
  int dp;
  int tp;
};
constexpr Config kConfigs[] = {{1, 1}, {2, 1}, {4, 1}, {1, 2}, {2, 2}, {4, 2}, {2, 4}, {8, 1}};

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

std::vector<Config> configs_for_this_world() {
  std::vector<Config> out;
  for (const Config& c : kConfigs) {
    if (c.dp * c.tp == world_size()) out.push_back(c);
  }
  return out;
}

// This rank's communicators for one TP degree.
struct Job {
  std::unique_ptr<comm::MpiCommunicator> world;
  comm::ProcessGroups groups;
};

Job make_job(int tp) {
  Job job;
  job.world = comm::MpiCommunicator::world();
  job.groups = comm::split_dp_tp(*job.world, tp);
  return job;
}

plan::StepPlan make_plan(const Config& c, const plan::StrategyOptions& options) {
  return canzona::baselines::make_step_plan(et::tiny_qwen3(), {c.dp, c.tp, 8}, options);
}

// [buffer][entry]: reference index of every local element on this TP rank.
using LocalMap = std::vector<std::vector<std::vector<std::int64_t>>>;

LocalMap local_map(const plan::StepPlan& p, int tp_rank) {
  LocalMap map(p.layout.buffers.size());
  for (std::size_t b = 0; b < map.size(); ++b) {
    for (const canzona::layout::BufferEntry& e : p.layout.buffers[b].entries) {
      map[b].push_back(
          et::reference_index(p.layout.params[e.param_index], e.shape, p.tp(), tp_rank));
    }
  }
  return map;
}

// Fills every buffer of `executor` from `value(param, reference index)` in the buffer's type;
// padding stays zero.
template <typename Value>
void upload(backend::Backend& be, const Executor& executor, const LocalMap& map, bool grads,
            Value value) {
  et::upload_buffers(be, executor, grads, [&](std::size_t b, std::size_t e, std::int64_t i) {
    const auto& entry = executor.plan().layout.buffers[b].entries[e];
    return value(entry.param_index, map[b][e][static_cast<std::size_t>(i)]);
  });
}

struct Mismatches {
  std::size_t count = 0;
  std::string first;
  template <typename... Args>
  void add(fmt::format_string<Args...> format, Args&&... args) {
    if (count++ == 0) first = fmt::format(format, std::forward<Args>(args)...);
  }
  std::string report() const {
    return count == 0 ? std::string() : fmt::format("{} mismatches; first: {}", count, first);
  }
};

bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// Bitwise comparison with the reference: every model parameter element (in the model type) and
// the zero padding of every buffer, then the fp32 main parameters of everything this rank steps.
std::string compare_params(backend::Backend& be, const Executor& executor, const LocalMap& map,
                           const et::Reference& reference) {
  const plan::StepPlan& p = executor.plan();
  Mismatches bad;
  for (std::size_t b = 0; b < map.size(); ++b) {
    const std::vector<float> host = et::download_params(be, executor, b);
    std::vector<bool> data(host.size(), false);
    const auto& entries = p.layout.buffers[b].entries;
    for (std::size_t e = 0; e < entries.size(); ++e) {
      for (std::size_t i = 0; i < map[b][e].size(); ++i) {
        const std::size_t at = static_cast<std::size_t>(entries[e].start) + i;
        data[at] = true;
        const float want =
            reference.model_value(entries[e].param_index, map[b][e][i], executor.param_type());
        if (!same_bits(host[at], want)) {
          bad.add("model param {} element {} (reference index {}): got {:.9g}, want {:.9g}",
                  entries[e].name, i, map[b][e][i], host[at], want);
        }
      }
    }
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (!data[i] && host[i] != 0.0f) {
        bad.add("padding element {} of buffer '{}' is {}", i, p.layout.buffers[b].name, host[i]);
      }
    }
  }
  for (const exec::MainRange& range : executor.main_params()) {
    const std::vector<float> main = et::download_main(be, range);
    const auto& entries = p.layout.buffers[range.buffer].entries;
    for (std::int64_t x = range.begin; x < range.end; ++x) {
      const float got = main[static_cast<std::size_t>(x - range.begin)];
      const auto it = std::upper_bound(
          entries.begin(), entries.end(), x,
          [](std::int64_t v, const canzona::layout::BufferEntry& entry) { return v < entry.end; });
      if (it == entries.end() || x < it->start) {
        if (got != 0.0f) bad.add("main padding element {} is {}", x, got);
        continue;
      }
      const auto e = static_cast<std::size_t>(it - entries.begin());
      const std::int64_t index = map[range.buffer][e][static_cast<std::size_t>(x - it->start)];
      const float want = reference.values(it->param_index)[static_cast<std::size_t>(index)];
      if (!same_bits(got, want)) {
        bad.add("main param {} element {} (reference index {}): got {:.9g}, want {:.9g}", it->name,
                x - it->start, index, got, want);
      }
    }
  }
  return bad.report();
}

// The optimizer state of every fragment this rank keeps equals the reference's, bitwise.
std::string compare_states(backend::Backend& be, const Executor& executor,
                           const et::Reference& reference) {
  const plan::StepPlan& p = executor.plan();
  Mismatches bad;
  for (std::size_t i = 0; i < p.matrices.size(); ++i) {
    for (std::size_t f = 0; f < p.matrices[i].fragments.size(); ++f) {
      const canzona::optim::MatrixState* state = executor.state(i, f);
      if (state == nullptr) continue;
      const auto got = state->tensors();
      const auto want = reference.state(p.matrices[i].param_index, f).tensors();
      if (got.size() != want.size()) {
        bad.add("{} fragment {}: {} state tensors, reference {}", p.matrices[i].name, f, got.size(),
                want.size());
        continue;
      }
      for (std::size_t k = 0; k < got.size(); ++k) {
        std::vector<float> a(static_cast<std::size_t>(got[k].rows * got[k].cols));
        std::vector<float> b(a.size());
        be.download(a.data(), got[k].data, a.size() * sizeof(float));
        std::memcpy(b.data(), want[k].data, b.size() * sizeof(float));  // cpu reference
        if (std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) != 0) {
          bad.add("{} fragment {} state '{}' differs", p.matrices[i].name, f, got[k].name);
        }
      }
    }
  }
  return bad.report();
}

// Per rank and summed over the world: fragments get the plan's matrix optimizer exactly once
// per owning TP group (on the host, or on every TP rank when stepped redundantly), never AdamW;
// AdamW parameters get AdamW on every element exactly once per TP rank (once per rank under
// DP-SC, which replicates it), never a matrix optimizer.
void expect_usage(const Executor& executor) {
  const plan::StepPlan& p = executor.plan();
  const OptimizerKind kind = p.options.optimizer.kind;
  const auto& usage = executor.usage();
  std::vector<std::int64_t> totals;
  for (const exec::OptimizerUsage& u : usage) {
    totals.push_back(u.matrix >= 0 ? u.steps_of(kind) : u.elements_of(OptimizerKind::kAdamW));
    if (u.matrix < 0) {
      EXPECT_EQ(u.steps_of(kind), 0) << u.name << " got the matrix optimizer";
      continue;
    }
    const plan::MatrixPlan& m = p.matrices[static_cast<std::size_t>(u.matrix)];
    const bool owns = m.dp_owner == -1 || m.dp_owner == executor.dp_rank();
    const bool steps = owns && (m.tp_host == -1 || m.tp_host == executor.tp_rank());
    EXPECT_EQ(u.steps_of(kind), steps ? 1 : 0)
        << u.name << " on rank (" << executor.dp_rank() << ", " << executor.tp_rank() << ")";
    EXPECT_EQ(u.steps_of(OptimizerKind::kAdamW), 0) << u.name << " silently got AdamW";
  }
  std::vector<std::int64_t> world(totals.size());
  MPI_Allreduce(totals.data(), world.data(), static_cast<int>(totals.size()), MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  for (std::size_t i = 0; i < usage.size(); ++i) {
    const exec::OptimizerUsage& u = usage[i];
    if (u.matrix >= 0) {
      const plan::MatrixPlan& m = p.matrices[static_cast<std::size_t>(u.matrix)];
      const int groups = m.dp_owner == -1 ? p.dp() : 1;
      const int per_group = m.tp_host == -1 ? p.tp() : 1;
      EXPECT_EQ(world[i], groups * per_group)
          << u.name << ": matrix-optimizer steps over all ranks";
    } else {
      // Once per TP rank; DP-SC steps AdamW on every DP rank too (replicated, no param sync).
      std::int64_t local = 0;
      int replicas = 1;
      for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
        for (const auto& e : p.layout.buffers[b].entries) {
          if (e.param_index != u.param_index) continue;
          local = e.numel();
          if (p.buffers[b].param_sync == plan::ParamSync::kNone) replicas = p.dp();
        }
      }
      EXPECT_EQ(world[i], local * p.tp() * replicas) << u.name << ": AdamW elements over all ranks";
    }
  }
}

struct Outcome {
  std::string trace;  // first trace mismatch of any step
};

// Runs `steps` steps of `executor` with the synthetic gradients, checking the trace each step.
void run_steps(backend::Backend& be, Executor& executor, Job& job, const LocalMap& map,
               std::uint64_t seed, int steps, Outcome& outcome) {
  for (int s = 0; s < steps; ++s) {
    upload(be, executor, map, /*grads=*/true, [&](std::size_t param, std::int64_t index) {
      return et::grad_value(seed, s, executor.dp_rank(), param, index);
    });
    job.groups.dp->clear_trace();
    job.groups.tp->clear_trace();
    executor.step();
    const std::string mismatch =
        exec::trace_mismatch(executor.plan(), executor.dp_rank(), executor.tp_rank(),
                             job.groups.dp->trace(), job.groups.tp->trace());
    if (outcome.trace.empty() && !mismatch.empty()) {
      outcome.trace = fmt::format("step {}: {}", s, mismatch);
    }
  }
}

// The reference's trajectory depends on the job shape, the optimizer and the fragments only:
// the test gradients make every reduction and cast of the executor exact.
std::string reference_key(const Config& c, const plan::StrategyOptions& o) {
  return fmt::format("dp{}tp{}/{}/qkv{}{}fc1{}", c.dp, c.tp,
                     canzona::optim::to_string(o.optimizer.kind), o.split.qkv, o.split.qkv_per_head,
                     o.split.fc1);
}

class ExecutorEquivalenceTest : public ::testing::TestWithParam<OptimizerKind> {};

TEST_P(ExecutorEquivalenceTest, EveryStrategyMatchesTheSingleProcessReferenceBitwise) {
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={}", seed));
  auto be = backend::make_cpu_backend();
  std::map<std::string, std::unique_ptr<et::Reference>> references;
  for (const Config& c : configs_for_this_world()) {
    Job job = make_job(c.tp);
    for (const et::Scenario& scenario : et::scenarios()) {
      SCOPED_TRACE(fmt::format("{} at dp {} x tp {}", scenario.label, c.dp, c.tp));
      const plan::StrategyOptions options = et::options_for(scenario, GetParam());
      Executor executor(make_plan(c, options), *job.world, *job.groups.dp, *job.groups.tp, *be);
      const std::string key = reference_key(c, options);
      if (references.find(key) == references.end()) {
        auto reference = std::make_unique<et::Reference>(et::tiny_qwen3(), executor.plan(), seed);
        for (int s = 0; s < kSteps; ++s) reference->step(s);
        references.emplace(key, std::move(reference));
      }
      const LocalMap map = local_map(executor.plan(), executor.tp_rank());
      upload(*be, executor, map, /*grads=*/false, [&](std::size_t param, std::int64_t index) {
        return et::init_value(seed, param, index);
      });
      Outcome outcome;
      run_steps(*be, executor, job, map, seed, kSteps, outcome);
      EXPECT_EQ(outcome.trace, "");
      expect_usage(executor);
      EXPECT_EQ(compare_params(*be, executor, map, *references.at(key)), "");
      EXPECT_EQ(compare_states(*be, executor, *references.at(key)), "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Optimizers, ExecutorEquivalenceTest,
                         ::testing::Values(OptimizerKind::kMuon, OptimizerKind::kShampoo,
                                           OptimizerKind::kSoap),
                         [](const ::testing::TestParamInfo<OptimizerKind>& param_info) {
                           return std::string(canzona::optim::to_string(param_info.param));
                         });

// One step of every scenario: the DP and TP traces equal the plan's rank_collectives, and the
// usage record holds, without the cost of the reference.
TEST(ExecutorTraceTest, EveryStepIssuesExactlyThePlannedCollectives) {
  const std::uint64_t seed = test_seed();
  auto be = backend::make_cpu_backend();
  for (const Config& c : configs_for_this_world()) {
    Job job = make_job(c.tp);
    for (const et::Scenario& scenario : et::scenarios()) {
      SCOPED_TRACE(fmt::format("{} at dp {} x tp {}", scenario.label, c.dp, c.tp));
      Executor executor(make_plan(c, et::options_for(scenario, OptimizerKind::kMuon)), *job.world,
                        *job.groups.dp, *job.groups.tp, *be);
      const LocalMap map = local_map(executor.plan(), executor.tp_rank());
      Outcome outcome;
      run_steps(*be, executor, job, map, seed, 2, outcome);
      EXPECT_EQ(outcome.trace, "");
      const auto planned =
          plan::rank_collectives(executor.plan(), executor.dp_rank(), executor.tp_rank());
      EXPECT_EQ(job.groups.dp->trace().size() + job.groups.tp->trace().size(), planned.size());
      expect_usage(executor);
      // The scenarios exercise what they are named for.
      const plan::StepPlan& p = executor.plan();
      const std::size_t groups = p.micro_groups.empty() ? 0 : p.micro_groups[0].size();
      if (c.dp == 1 && c.tp == 2 && scenario.label == "asc") {
        EXPECT_GT(groups, 3u) << "the staging ring (3 sets) never turns over";
      }
      if (c.dp == 1 && c.tp > 1 && scenario.label == "canzona/slot-capacity") {
        EXPECT_GT(groups, 1u) << "the slot capacity does not bind";
      }
      if (c.tp > 1 && scenario.label == "sc") {
        EXPECT_FALSE(p.replicated_matrices[0].empty()) << "no TP-SC all-gathers";
      }
    }
  }
}

// Step 1 started early, as backward would (grad_bucket_ready, buckets in a different random
// order on every rank): each rank issues the grad-sync collectives in step 1's order, every one
// as soon as its bucket and those before it are ready; the steps equal step() alone bitwise
// with the same traces; sync_grads() leaves the DP mean in what this rank keeps.
TEST(ExecutorOverlapTest, BucketsMarkedReadyEarlyKeepTheStepAndTheTrace) {
  const std::uint64_t seed = test_seed();
  auto be = backend::make_cpu_backend();
  for (const Config& c : configs_for_this_world()) {
    Job job = make_job(c.tp);
    for (const et::Scenario& scenario : et::scenarios()) {
      if (scenario.label != "canzona" && scenario.label != "sc" && scenario.label != "layerwise" &&
          scenario.label != "canzona/grad-bf16") {
        continue;
      }
      SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} {} at dp {} x tp {}", seed, scenario.label,
                               c.dp, c.tp));
      const plan::StepPlan p = make_plan(c, et::options_for(scenario, OptimizerKind::kMuon));
      Executor plain(p, *job.world, *job.groups.dp, *job.groups.tp, *be);
      Executor early(p, *job.world, *job.groups.dp, *job.groups.tp, *be);
      const LocalMap map = local_map(p, plain.tp_rank());
      const auto init = [&](std::size_t param, std::int64_t index) {
        return et::init_value(seed, param, index);
      };
      upload(*be, plain, map, /*grads=*/false, init);
      upload(*be, early, map, /*grads=*/false, init);

      // Step 1's order: buffer by buffer, bucket by bucket.
      std::vector<std::pair<std::size_t, std::size_t>> order;
      for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
        for (std::size_t k = 0; k < p.layout.buffers[b].buckets.size(); ++k)
          order.emplace_back(b, k);
      }
      std::mt19937_64 shuffle(seed + 7919 * static_cast<std::uint64_t>(plain.dp_rank()));
      for (int s = 0; s < 2; ++s) {
        const auto grad = [&](std::size_t param, std::int64_t index) {
          return et::grad_value(seed, s, plain.dp_rank(), param, index);
        };
        upload(*be, plain, map, /*grads=*/true, grad);
        upload(*be, early, map, /*grads=*/true, grad);
        plain.step();

        job.groups.dp->clear_trace();
        job.groups.tp->clear_trace();
        std::vector<std::size_t> marks(order.size());
        std::iota(marks.begin(), marks.end(), std::size_t{0});
        std::shuffle(marks.begin(), marks.end(), shuffle);
        std::vector<bool> ready(order.size(), false);
        std::size_t prefix = 0;
        for (const std::size_t m : marks) {
          early.grad_bucket_ready(order[m].first, order[m].second);
          ready[m] = true;
          while (prefix < ready.size() && ready[prefix]) ++prefix;
          EXPECT_EQ(job.groups.dp->trace().size(), c.dp == 1 ? 0 : prefix)
              << "collectives issued after marking bucket " << order[m].second << " of buffer "
              << order[m].first;
        }
        EXPECT_THROW(early.grad_bucket_ready(0, p.layout.buffers[0].buckets.size()), ConfigError);
        if (c.dp > 1) {
          EXPECT_THROW(early.grad_bucket_ready(0, 0), canzona::Error);
        }
        early.step();
        EXPECT_EQ(exec::trace_mismatch(p, early.dp_rank(), early.tp_rank(), job.groups.dp->trace(),
                                       job.groups.tp->trace()),
                  "")
            << "step " << s;
      }
      for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
        EXPECT_EQ(et::download_params(*be, early, b), et::download_params(*be, plain, b))
            << p.layout.buffers[b].name;
      }
      const auto early_main = early.main_params();
      const auto plain_main = plain.main_params();
      ASSERT_EQ(early_main.size(), plain_main.size());
      for (std::size_t r = 0; r < early_main.size(); ++r) {
        EXPECT_EQ(et::download_main(*be, early_main[r]), et::download_main(*be, plain_main[r]));
      }

      // sync_grads(): the mean over DP ranks (exact for the test gradients) where this rank
      // keeps the result, half of the buckets started early.
      const int s = 2;
      upload(*be, early, map, /*grads=*/true, [&](std::size_t param, std::int64_t index) {
        return et::grad_value(seed, s, early.dp_rank(), param, index);
      });
      for (std::size_t i = 0; i < order.size(); i += 2) {
        early.grad_bucket_ready(order[i].first, order[i].second);
      }
      early.sync_grads();
      EXPECT_EQ(early.steps(), 2);
      for (std::size_t b = 0; b < p.layout.buffers.size(); ++b) {
        const canzona::layout::Buffer& buffer = p.layout.buffers[b];
        const plan::BufferPlan& bp = p.buffers[b];
        const std::vector<float> got = et::download_grads(*be, early, b);
        Mismatches bad;
        for (std::size_t e = 0; e < buffer.entries.size(); ++e) {
          const canzona::layout::BufferEntry& entry = buffer.entries[e];
          const canzona::layout::Bucket& bucket =
              buffer.buckets[static_cast<std::size_t>(entry.bucket)];
          std::int64_t keep_begin = bucket.start;
          std::int64_t keep_end = bucket.end;
          if (bp.grad_sync == plan::GradSync::kReduceScatter && c.dp > 1) {
            const plan::BucketCuts& cuts =
                bp.partition.buckets[static_cast<std::size_t>(entry.bucket)];
            keep_begin = cuts.pos[static_cast<std::size_t>(early.dp_rank())];
            keep_end = keep_begin + cuts.slice(early.dp_rank());
          }
          for (std::int64_t x = std::max(entry.start, keep_begin);
               x < std::min(entry.end, keep_end); ++x) {
            const std::int64_t index = map[b][e][static_cast<std::size_t>(x - entry.start)];
            float sum = 0;
            for (int d = 0; d < c.dp; ++d)
              sum += et::grad_value(seed, s, d, entry.param_index, index);
            const float want = sum / static_cast<float>(c.dp);
            if (!same_bits(got[static_cast<std::size_t>(x)], want)) {
              bad.add("{} element {}: got {}, want {}", entry.name, x - entry.start,
                      got[static_cast<std::size_t>(x)], want);
            }
          }
        }
        EXPECT_EQ(bad.report(), "") << buffer.name;
      }
    }
  }
}

TEST(ExecutorTimerTest, PhaseTimesCoverTheStepAndIdleIsPartOfThem) {
  auto be = backend::make_cpu_backend();
  for (const Config& c : configs_for_this_world()) {
    Job job = make_job(c.tp);
    plan::StrategyOptions options = et::options_for(et::scenarios().front(), OptimizerKind::kMuon);
    Executor executor(make_plan(c, options), *job.world, *job.groups.dp, *job.groups.tp, *be);
    const LocalMap map = local_map(executor.plan(), executor.tp_rank());
    Outcome outcome;
    run_steps(*be, executor, job, map, test_seed(), 1, outcome);
    const exec::StepTimes t = executor.last_step_times();
    double phases = 0;
    for (std::size_t i = 0; i + 1 < exec::kTimerSlots; ++i) {
      EXPECT_GE(t.seconds[i], 0.0) << exec::to_string(static_cast<exec::TimerSlot>(i));
      phases += t.seconds[i];
    }
    EXPECT_GT(t.total, 0.0);
    EXPECT_LE(phases, t.total * (1 + 1e-9) + 1e-9);
    EXPECT_LE(t[exec::TimerSlot::kIdle], phases + 1e-9);
    EXPECT_GT(t[exec::TimerSlot::kUpdate], 0.0);
    // Every rank steps matrices unless DP owns them elsewhere; rank 0 always owns some here.
    if (executor.dp_rank() == 0 && executor.tp_rank() == 0) {
      EXPECT_GT(t[exec::TimerSlot::kCompute], 0.0);
    }
    EXPECT_EQ(executor.steps(), 1);
  }
}

TEST(ExecutorStartupTest, RanksWithDifferentPlansFailTogetherNamingBothHashes) {
  if (world_size() < 2) GTEST_SKIP() << "needs at least 2 ranks";
  auto be = backend::make_cpu_backend();
  Job job = make_job(1);
  plan::StrategyOptions options = et::options_for(et::scenarios().front(), OptimizerKind::kMuon);
  if (job.world->rank() == 0) options.alpha = 0.5;
  const plan::StepPlan p = make_plan({world_size(), 1}, options);
  try {
    Executor executor(p, *job.world, *job.groups.dp, *job.groups.tp, *be);
    ADD_FAILURE() << "mismatched plans were accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("different step plans"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 0 has plan hash"), std::string::npos) << what;
    EXPECT_NE(what.find(fmt::format("{:#018x}", plan::plan_hash(p))), std::string::npos)
        << "the message names this rank's hash: " << what;
  }
}

TEST(ExecutorStartupTest, DifferentOptimizerHyperParametersAreRefused) {
  if (world_size() < 2) GTEST_SKIP() << "needs at least 2 ranks";
  auto be = backend::make_cpu_backend();
  Job job = make_job(1);
  plan::StrategyOptions options = et::options_for(et::scenarios().front(), OptimizerKind::kMuon);
  if (job.world->rank() == world_size() - 1) options.optimizer.muon.lr *= 2;
  EXPECT_THROW(Executor(make_plan({world_size(), 1}, options), *job.world, *job.groups.dp,
                        *job.groups.tp, *be),
               ConfigError);
}

TEST(ExecutorStartupTest, PlanForAnotherWorldSizeIsAConfigError) {
  auto be = backend::make_cpu_backend();
  Job job = make_job(1);
  const plan::StrategyOptions options =
      et::options_for(et::scenarios().front(), OptimizerKind::kMuon);
  try {
    Executor executor(make_plan({2 * world_size(), 1}, options), *job.world, *job.groups.dp,
                      *job.groups.tp, *be);
    ADD_FAILURE() << "a plan for twice the ranks was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ranks"), std::string::npos) << e.what();
  }
}

TEST(ExecutorStartupTest, PlanThatBreaksAtomicityFailsOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs at least 2 DP ranks";
  auto be = backend::make_cpu_backend();
  Job job = make_job(1);
  plan::StepPlan p =
      make_plan({world_size(), 1}, et::options_for(et::scenarios().front(), OptimizerKind::kMuon));
  // Every rank corrupts the same plan: hashes agree, each rank's own checks fail.
  p.matrices.front().dp_owner = (p.matrices.front().dp_owner + 1) % p.dp();
  EXPECT_THROW(Executor(p, *job.world, *job.groups.dp, *job.groups.tp, *be), canzona::Error);
}

}  // namespace
