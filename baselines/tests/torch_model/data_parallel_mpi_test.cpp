// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The ZeRO-1 data-parallel iteration through the executor under mpirun: (dp, tp) = (2, 1) on 2
// ranks, (2, 2) on 4. Each is checked against the same iteration without data parallelism, run
// by every TP group on its own (dp = 1, same tp, the two DP ranks' micro-batches in one
// iteration): losses, model parameters and fp32 main parameters are BITWISE equal after two
// iterations for every strategy, in pure fp32 and in Megatron's bf16 + fp32 precision. That is
// exact arithmetic, not luck: with one micro-batch per DP rank the DP gradient is
// (g0 + g1) · 1/2 (one rounding of a two-term sum, then a power of two), the reference
// accumulates g0/2 + g1/2 (the 1/2 scales every backward value exactly), and the executor's
// step is bitwise independent of dp (lib/exec's tests). The synced gradient buffers equal
// autograd's gradients the same way; backward reports every bucket of a dense model and the
// DP trace is the plan's; the loss falls over 20 iterations for every strategy and optimizer.
#include <canzona/backend/backend.hpp>
#include <canzona/baselines/strategy.hpp>
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/core/error.hpp>
#include <canzona/exec/executor.hpp>
#include <canzona/exec/trace_check.hpp>
#include <canzona/testing/seed.hpp>
#include <canzona/torch_model/data_parallel_iteration.hpp>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "exec_test_support.hpp"
#include "torch_test_support.hpp"

namespace {

namespace tm = canzona::torch_model;
namespace tt = canzona::torch_model::testing;
namespace comm = canzona::comm;
namespace exec = canzona::exec;
namespace plan = canzona::plan;
using canzona::ConfigError;
using canzona::model::ModelSpec;
using canzona::optim::OptimizerKind;

constexpr std::int64_t kBatch = 2;
constexpr std::int64_t kSeq = 8;
constexpr int kDp = 2;

enum class Precision { kFp32, kBf16 };

at::ScalarType model_dtype(Precision p) {
  return p == Precision::kFp32 ? at::kFloat : at::kBFloat16;
}

plan::StrategyOptions strategy_options(std::string_view strategy, OptimizerKind kind,
                                       Precision precision) {
  plan::StrategyOptions options;
  canzona::baselines::apply_strategy(strategy, options);
  options.optimizer = canzona::exec::testing::optimizer_spec(kind);
  if (precision == Precision::kFp32) options.precision.params = comm::DataType::kFloat32;
  // Small buckets: every buffer gets several, so order and overlap show.
  options.zero1.bucket_size = 8192;
  return options;
}

// One process group layout: the job's (dp, tp) or its per-TP-group reference (1, tp).
struct Groups {
  comm::Communicator* world = nullptr;
  comm::ProcessGroups groups;
  std::unique_ptr<comm::Communicator> model_tp;  ///< the model's own TP communicator
  int dp_rank() const { return groups.dp->rank(); }
  int tp_rank() const { return groups.tp->rank(); }
};

Groups make_groups(comm::Communicator& world, int tp) {
  Groups g;
  g.world = &world;
  g.groups = comm::split_dp_tp(world, tp);
  // Its own communicator, so that the executor's TP trace holds only the optimizer's
  // collectives.
  g.model_tp = g.groups.tp->split(0, g.groups.tp->rank(), "model_tp");
  return g;
}

// An executor and the model bound to it.
struct Trainer {
  std::unique_ptr<canzona::backend::Backend> backend = canzona::backend::make_backend("cpu");
  std::unique_ptr<exec::Executor> executor;
  std::unique_ptr<tm::Qwen3Model> model;
  std::unique_ptr<tm::DataParallelIteration> iteration;
};

tm::ModelOptions model_options(at::ScalarType dtype) {
  tm::ModelOptions o;
  o.dtype = dtype;
  o.shape = {kBatch, kSeq};
  return o;
}

std::unique_ptr<Trainer> make_trainer(const ModelSpec& spec, Groups& g,
                                      const plan::StrategyOptions& options, at::ScalarType dtype,
                                      std::uint64_t seed) {
  auto t = std::make_unique<Trainer>();
  const plan::StepPlan p = canzona::baselines::make_step_plan(
      spec, {g.groups.dp->size(), g.groups.tp->size(), 8}, options);
  t->executor =
      std::make_unique<exec::Executor>(p, *g.world, *g.groups.dp, *g.groups.tp, *t->backend);
  t->model = std::make_unique<tm::Qwen3Model>(spec, tm::TensorParallelGroup(*g.model_tp),
                                              model_options(dtype));
  t->model->init_parameters(tt::test_init(seed));
  t->iteration = std::make_unique<tm::DataParallelIteration>(*t->model, *t->executor, *t->backend);
  return t;
}

// Micro-batch of DP rank d at iteration i: the same on the TP ranks of d.
tm::MicroBatch micro_batch(const ModelSpec& spec, std::uint64_t seed, int d, int i) {
  const tt::Batch b = tt::random_batch(spec, kBatch, kSeq, seed + 1000 * d + i);
  return {b.tokens, b.labels};
}

bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// The fp32 main parameters a trainer steps, per parameter: element → value.
std::vector<std::vector<std::pair<std::int64_t, float>>> main_values(const Trainer& t) {
  const plan::StepPlan& p = t.executor->plan();
  std::vector<std::vector<std::pair<std::int64_t, float>>> out(p.layout.params.size());
  for (const exec::MainRange& range : t.executor->main_params()) {
    for (const canzona::layout::BufferEntry& e : p.layout.buffers[range.buffer].entries) {
      for (std::int64_t x = std::max(e.start, range.begin); x < std::min(e.end, range.end); ++x) {
        out[e.param_index].emplace_back(x - e.start, range.data[x - range.begin]);
      }
    }
  }
  return out;
}

// The elements of buffer b this rank keeps after the gradient sync: its cut of every bucket
// after a reduce-scatter, every bucket after an all-reduce.
std::vector<std::pair<std::int64_t, std::int64_t>> kept_ranges(const plan::StepPlan& p,
                                                               std::size_t b, int dp_rank) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const auto& buffer = p.layout.buffers[b];
  for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
    if (p.buffers[b].grad_sync == plan::GradSync::kReduceScatter && p.dp() > 1) {
      const plan::BucketCuts& cuts = p.buffers[b].partition.buckets[k];
      const std::int64_t begin = cuts.pos[static_cast<std::size_t>(dp_rank)];
      out.emplace_back(begin, begin + cuts.slice(dp_rank));
    } else {
      out.emplace_back(buffer.buckets[k].start, buffer.buckets[k].end);
    }
  }
  return out;
}

struct Case {
  tt::TinyKind kind;
  Precision precision;
};

class DataParallelTest : public ::testing::TestWithParam<Case> {
 protected:
  static void SetUpTestSuite() {
    at::set_num_threads(1);  // up to 4 ranks share 2 cores; also fixes every sum's order
    world_ = comm::MpiCommunicator::world();
  }
  static void TearDownTestSuite() { world_.reset(); }
  static int tp() { return world_->size() / kDp; }

  static std::unique_ptr<comm::MpiCommunicator> world_;
};

std::unique_ptr<comm::MpiCommunicator> DataParallelTest::world_;

TEST_P(DataParallelTest, IterationsEqualTheIterationWithoutDataParallelismBitwise) {
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(GetParam().kind);
  const at::ScalarType dtype = model_dtype(GetParam().precision);
  Groups job = make_groups(*world_, tp());
  // Each TP group on its own: the job without data parallelism.
  Groups single = make_groups(*job.groups.tp, tp());
  for (const std::string_view strategy : canzona::baselines::strategy_names()) {
    SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} dp={} tp={} {}", seed, kDp, tp(), strategy));
    const plan::StrategyOptions options =
        strategy_options(strategy, OptimizerKind::kMuon, GetParam().precision);
    const auto dp = make_trainer(spec, job, options, dtype, seed);
    const auto reference = make_trainer(spec, single, options, dtype, seed);
    for (int i = 0; i < 2; ++i) {
      const double mine = dp->iteration->run({micro_batch(spec, seed, job.dp_rank(), i)});
      double sum = 0;
      job.groups.dp->all_reduce(&mine, &sum, 1, comm::DataType::kFloat64, comm::ReduceOp::kSum)
          .wait();
      const double want =
          reference->iteration->run({micro_batch(spec, seed, 0, i), micro_batch(spec, seed, 1, i)});
      EXPECT_TRUE(same_bits(sum / kDp, want))
          << "iteration " << i << ": loss " << sum / kDp << " vs " << want;
    }
    const auto& got = dp->model->parameters();
    const auto& want = reference->model->parameters();
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(got[i].equal(want[i])) << dp->model->param_specs()[i].name;
    }
    // What this rank steps of the fp32 main parameters, element by element.
    const auto got_main = main_values(*dp);
    const auto want_main = main_values(*reference);
    std::size_t compared = 0;
    for (std::size_t i = 0; i < got_main.size(); ++i) {
      std::map<std::int64_t, float> all(want_main[i].begin(), want_main[i].end());
      for (const auto& [element, value] : got_main[i]) {
        const auto it = all.find(element);
        ASSERT_NE(it, all.end()) << "the reference does not step element " << element << " of "
                                 << dp->model->param_specs()[i].name;
        EXPECT_EQ(std::bit_cast<std::uint32_t>(value), std::bit_cast<std::uint32_t>(it->second))
            << dp->model->param_specs()[i].name << " element " << element;
        ++compared;
      }
    }
    EXPECT_GT(compared, 0u);
  }
}

// StepKind::kGradSyncOnly: what each rank keeps of the gradient buffers is the mean over the DP
// ranks' micro-batches of autograd's gradient, computed here with the plain model (no hooks,
// no buffers) on the same TP group and summed in fp32 in DP-rank order.
TEST_P(DataParallelTest, SyncedGradientBuffersHoldAutogradsGradient) {
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(GetParam().kind);
  const at::ScalarType dtype = model_dtype(GetParam().precision);
  Groups job = make_groups(*world_, tp());
  for (const char* strategy : {"canzona", "sc"}) {  // reduce-scatter on cuts; all-reduce
    SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} dp={} tp={} {}", seed, kDp, tp(), strategy));
    const auto t = make_trainer(
        spec, job, strategy_options(strategy, OptimizerKind::kMuon, GetParam().precision), dtype,
        seed);
    (void)t->iteration->run({micro_batch(spec, seed, job.dp_rank(), 0)},
                            tm::StepKind::kGradSyncOnly);
    EXPECT_EQ(t->executor->steps(), 0);

    tm::Qwen3Model plain(spec, tm::TensorParallelGroup(*job.model_tp), model_options(dtype));
    plain.init_parameters(tt::test_init(seed));
    const plan::StepPlan& p = t->executor->plan();
    std::vector<at::Tensor> expected;
    for (const auto& buffer : p.layout.buffers) {
      expected.push_back(at::zeros({buffer.total}, at::TensorOptions().dtype(at::kFloat)));
    }
    for (int d = 0; d < kDp; ++d) {
      const tm::MicroBatch b = micro_batch(spec, seed, d, 0);
      (plain.forward(b.tokens, b.labels).loss * (1.0 / kDp)).backward();
      for (std::size_t bi = 0; bi < p.layout.buffers.size(); ++bi) {
        for (const auto& entry : p.layout.buffers[bi].entries) {
          at::Tensor& grad = plain.parameters()[entry.param_index].mutable_grad();
          if (!grad.defined()) continue;
          expected[bi].narrow(0, entry.start, entry.numel()) += grad.reshape({-1}).to(at::kFloat);
          grad.reset();
        }
      }
    }
    for (std::size_t bi = 0; bi < p.layout.buffers.size(); ++bi) {
      const at::Tensor got = at::from_blob(t->executor->grads(bi), {p.layout.buffers[bi].total},
                                           at::TensorOptions().dtype(at::kFloat));
      for (const auto& [begin, end] : kept_ranges(p, bi, job.dp_rank())) {
        const at::Tensor g = got.narrow(0, begin, end - begin);
        const at::Tensor w = expected[bi].narrow(0, begin, end - begin);
        EXPECT_TRUE(g.equal(w)) << p.layout.buffers[bi].name << " [" << begin << ", " << end
                                << "): max |diff| " << (g - w).abs().max().item<double>();
      }
      EXPECT_GT(expected[bi].abs().max().item<double>(), 0.0);
    }
  }
}

// Backward reports every bucket of a dense model, the first while gradients are still being
// computed, and the iteration's DP and TP traces are the plan's collectives, in order.
TEST_P(DataParallelTest, BackwardStartsEveryBucketAndTheTraceIsThePlans) {
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(GetParam().kind);
  const at::ScalarType dtype = model_dtype(GetParam().precision);
  Groups job = make_groups(*world_, tp());
  for (const std::string_view strategy : canzona::baselines::strategy_names()) {
    SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} dp={} tp={} {}", seed, kDp, tp(), strategy));
    const auto t = make_trainer(
        spec, job, strategy_options(strategy, OptimizerKind::kMuon, GetParam().precision), dtype,
        seed);
    job.groups.dp->clear_trace();
    job.groups.tp->clear_trace();
    (void)t->iteration->run({micro_batch(spec, seed, job.dp_rank(), 0)});
    EXPECT_EQ(exec::trace_mismatch(t->executor->plan(), job.dp_rank(), job.tp_rank(),
                                   job.groups.dp->trace(), job.groups.tp->trace()),
              "");
    const auto& reports = t->iteration->ddp().reports();
    if (!spec.is_moe()) {
      EXPECT_EQ(reports.size(), t->iteration->ddp().buckets());
    }
    ASSERT_FALSE(reports.empty());
    EXPECT_GT(reports.front().gradients_pending, 0u) << "the first bucket waited for backward";
  }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, DataParallelTest,
                         ::testing::Values(Case{tt::TinyKind::kDense, Precision::kFp32},
                                           Case{tt::TinyKind::kDense, Precision::kBf16},
                                           Case{tt::TinyKind::kTied, Precision::kBf16},
                                           Case{tt::TinyKind::kMoe, Precision::kBf16}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return fmt::format(
                               "{}_{}", tt::to_string(param_info.param.kind),
                               param_info.param.precision == Precision::kFp32 ? "fp32" : "bf16");
                         });

// The whole iteration with every strategy and optimizer in Megatron's precision: the loss of a
// fixed batch falls, and the DP ranks end with identical parameters. At tp = 2 Muon only (CI
// time): the bitwise test above ties every strategy at tp = 2 to the run without DP, and
// lib/exec's tests tie Shampoo and SOAP at tp = 2 to the single-process optimizer.
TEST(DataParallelTrainingTest, LossFallsOverTwentyIterationsWithEveryStrategyAndOptimizer) {
  at::set_num_threads(1);
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(tt::TinyKind::kDense);
  auto world = comm::MpiCommunicator::world();
  Groups job = make_groups(*world, world->size() / kDp);
  std::vector<OptimizerKind> kinds = {OptimizerKind::kMuon};
  if (job.groups.tp->size() == 1) {
    kinds.insert(kinds.end(), {OptimizerKind::kShampoo, OptimizerKind::kSoap});
  }
  for (const std::string_view strategy : canzona::baselines::strategy_names()) {
    for (const OptimizerKind kind : kinds) {
      SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} {} {}", seed, strategy,
                               canzona::optim::to_string(kind)));
      const auto t = make_trainer(spec, job, strategy_options(strategy, kind, Precision::kBf16),
                                  at::kBFloat16, seed);
      const std::vector<tm::MicroBatch> batch = {micro_batch(spec, seed, job.dp_rank(), 0)};
      const double first = t->iteration->run(batch);
      double last = first;
      for (int i = 1; i < 20; ++i) last = t->iteration->run(batch);
      EXPECT_LT(last, 0.8 * first) << "loss " << first << " -> " << last;

      double checksum = 0;
      for (std::size_t i = 0; i < t->model->parameters().size(); ++i) {
        const at::Tensor v = t->model->parameters()[i].to(at::kDouble).reshape({-1});
        checksum += (v * at::arange(v.numel(), v.options())).sum().item<double>() *
                    static_cast<double>(i + 1);
      }
      double low = 0;
      double high = 0;
      job.groups.dp->all_reduce(&checksum, &low, 1, comm::DataType::kFloat64, comm::ReduceOp::kMin)
          .wait();
      job.groups.dp->all_reduce(&checksum, &high, 1, comm::DataType::kFloat64, comm::ReduceOp::kMax)
          .wait();
      EXPECT_EQ(low, high) << "the DP ranks' parameters differ";
    }
  }
}

TEST(DataParallelBadInputTest, MismatchedModelOrNoMicroBatchIsAConfigError) {
  auto world = comm::MpiCommunicator::world();
  Groups job = make_groups(*world, world->size() / kDp);
  const ModelSpec dense = tt::tiny_model(tt::TinyKind::kDense);
  auto backend = canzona::backend::make_backend("cpu");
  const plan::StepPlan p = canzona::baselines::make_step_plan(
      dense, {kDp, job.groups.tp->size(), 8},
      strategy_options("canzona", OptimizerKind::kMuon, Precision::kBf16));
  exec::Executor executor(p, *world, *job.groups.dp, *job.groups.tp, *backend);
  const tm::TensorParallelGroup group(*job.model_tp);

  tm::Qwen3Model fp32(dense, group, model_options(at::kFloat));  // the plan keeps bf16
  EXPECT_THROW(tm::DataParallelIteration(fp32, executor, *backend), ConfigError);
  tm::Qwen3Model moe(tt::tiny_model(tt::TinyKind::kMoe), group, model_options(at::kBFloat16));
  EXPECT_THROW(tm::DataParallelIteration(moe, executor, *backend), ConfigError);
  tm::Qwen3Model unsharded(dense, {}, model_options(at::kBFloat16));
  if (job.groups.tp->size() > 1) {
    EXPECT_THROW(tm::DataParallelIteration(unsharded, executor, *backend), ConfigError);
  }

  tm::Qwen3Model model(dense, group, model_options(at::kBFloat16));
  tm::DataParallelIteration iteration(model, executor, *backend);
  EXPECT_THROW((void)iteration.run({}), ConfigError);
}

}  // namespace
