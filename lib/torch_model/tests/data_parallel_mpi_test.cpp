// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The ZeRO-1 data-parallel iteration under mpirun at (dp, tp) = (2, 1) on 2 ranks and (4, 1),
// (2, 2) on 4: the gradients the bucketed sync leaves in each rank's share of the buffers equal
// the single-process gradient of the global batch; the collectives started during backward are
// the plan's grad-sync collectives, in order; with the executor's step, the loss falls over 20
// iterations for every strategy and optimizer and the DP ranks hold identical parameters.
#include <canzona/baselines/strategy.hpp>
#include <canzona/comm/mpi_communicator.hpp>
#include <canzona/comm/process_groups.hpp>
#include <canzona/core/error.hpp>
#include <canzona/testing/seed.hpp>
#include <canzona/torch_model/data_parallel_iteration.hpp>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "torch_test_support.hpp"

namespace {

namespace tm = canzona::torch_model;
namespace tt = canzona::torch_model::testing;
using canzona::model::ModelSpec;
using canzona::model::ParamRole;

constexpr std::int64_t kBatch = 2;
constexpr std::int64_t kSeq = 8;
constexpr int kMicroBatches = 2;

struct Job {
  int dp = 1;
  int tp = 1;
  std::unique_ptr<canzona::comm::MpiCommunicator> world;
  canzona::comm::ProcessGroups groups;
  int dp_rank() const { return groups.dp->rank(); }
  int tp_rank() const { return groups.tp->rank(); }
};

// The (dp, tp) splits of the job's ranks this suite runs.
std::vector<std::pair<int, int>> configs(int world) {
  if (world == 4) return {{4, 1}, {2, 2}};
  return {{world, 1}};
}

Job make_job(int dp, int tp) {
  Job job;
  job.dp = dp;
  job.tp = tp;
  job.world = canzona::comm::MpiCommunicator::world();
  job.groups = canzona::comm::split_dp_tp(*job.world, tp);
  return job;
}

canzona::plan::StepPlan make_plan(const ModelSpec& spec, const Job& job, std::string_view strategy,
                                  canzona::optim::OptimizerKind kind) {
  canzona::plan::StrategyOptions options;
  canzona::baselines::apply_strategy(strategy, options);
  options.optimizer.kind = kind;
  // Small buckets: every buffer gets several, so the order and the overlap are visible.
  options.zero1.bucket_size = 8192;
  canzona::layout::ParallelConfig config;
  config.dp = job.dp;
  config.tp = job.tp;
  return canzona::baselines::make_step_plan(spec, config, options);
}

tm::ModelOptions options(at::ScalarType dtype) {
  tm::ModelOptions o;
  o.dtype = dtype;
  o.shape = {kBatch, kSeq};
  return o;
}

// Micro-batch m of DP rank d: the same on the TP ranks of d, different everywhere else.
tm::MicroBatch micro_batch(const ModelSpec& spec, std::uint64_t seed, int dp_rank, int m) {
  const tt::Batch b = tt::random_batch(spec, kBatch, kSeq, seed + 1000 * dp_rank + m);
  return {b.tokens, b.labels};
}

class DataParallelTest : public ::testing::TestWithParam<tt::TinyKind> {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
};

TEST_P(DataParallelTest, OverlappedGradSyncGivesTheGlobalBatchGradient) {
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(GetParam());
  const int world_size = canzona::comm::MpiCommunicator::world()->size();
  for (const auto& [dp, tp] : configs(world_size)) {
    for (const char* strategy : {"canzona", "sc"}) {  // reduce-scatter on cuts; all-reduce
      SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} dp={} tp={} {}", seed, dp, tp, strategy));
      Job job = make_job(dp, tp);
      const auto plan = make_plan(spec, job, strategy, canzona::optim::OptimizerKind::kMuon);
      tm::Qwen3Model model(spec, tm::TensorParallelGroup(*job.groups.tp), options(at::kDouble));
      model.init_parameters(tt::test_init(seed));
      const auto step = tm::make_no_optimizer_step(plan, at::kDouble, at::kCPU);
      tm::DataParallelIteration iteration(plan, model, *job.groups.dp, *step);
      std::vector<tm::MicroBatch> mine;
      for (int m = 0; m < kMicroBatches; ++m) {
        mine.push_back(micro_batch(spec, seed, job.dp_rank(), m));
      }
      (void)iteration.run(mine);
      if (!spec.is_moe()) {
        // Every bucket of a dense model completes inside backward.
        EXPECT_EQ(iteration.grad_sync().started_in_backward(), iteration.grad_sync().buckets());
      }

      // The single-process gradient of the mean loss over every DP rank's micro-batches.
      tm::Qwen3Model single(spec, {}, options(at::kDouble));
      single.init_parameters(tt::test_init(seed));
      for (int d = 0; d < dp; ++d) {
        for (int m = 0; m < kMicroBatches; ++m) {
          const tm::MicroBatch b = micro_batch(spec, seed, d, m);
          (single.forward(b.tokens, b.labels).loss / (dp * kMicroBatches)).backward();
        }
      }
      for (std::size_t bi = 0; bi < plan.layout.buffers.size(); ++bi) {
        const auto& buffer = plan.layout.buffers[bi];
        at::Tensor expected = at::zeros({buffer.total}, at::TensorOptions().dtype(at::kDouble));
        for (const auto& entry : buffer.entries) {
          const auto& param = single.param_specs()[entry.param_index];
          at::Tensor full = tt::grad_or_zeros(single.parameters()[entry.param_index]);
          if (param.role == ParamRole::kEmbedding || param.role == ParamRole::kOutputHead) {
            full = full.narrow(0, 0, spec.vocab_size);
          }
          expected.narrow(0, entry.start, entry.numel())
              .copy_(tm::tp_shard(full, param, spec, tp, job.tp_rank()).reshape({-1}));
        }
        const at::Tensor got = step->grads(bi);
        const auto& buffer_plan = plan.buffers[bi];
        for (std::size_t k = 0; k < buffer.buckets.size(); ++k) {
          std::int64_t begin = buffer.buckets[k].start;
          std::int64_t count = buffer.buckets[k].size();
          if (buffer_plan.grad_sync == canzona::plan::GradSync::kReduceScatter) {
            begin = buffer_plan.partition.buckets[k].pos[static_cast<std::size_t>(job.dp_rank())];
            count = buffer_plan.partition.buckets[k].slice(job.dp_rank());
          }
          if (count == 0) continue;
          const at::Tensor want = expected.narrow(0, begin, count);
          const double error = (got.narrow(0, begin, count) - want).abs().max().item<double>() /
                               (1 + want.abs().max().item<double>());
          EXPECT_LE(error, 1e-12) << buffer.name << " bucket " << k;
        }
      }
    }
  }
}

TEST_P(DataParallelTest, BackwardStartsThePlansGradSyncCollectivesInOrder) {
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(GetParam());
  const int world_size = canzona::comm::MpiCommunicator::world()->size();
  for (const auto& [dp, tp] : configs(world_size)) {
    for (const std::string_view strategy : canzona::baselines::strategy_names()) {
      SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} dp={} tp={} {}", seed, dp, tp, strategy));
      Job job = make_job(dp, tp);
      const auto plan = make_plan(spec, job, strategy, canzona::optim::OptimizerKind::kMuon);
      tm::Qwen3Model model(spec, tm::TensorParallelGroup(*job.groups.tp), options(at::kFloat));
      model.init_parameters(tt::test_init(seed));
      const auto step = tm::make_no_optimizer_step(plan, at::kFloat, at::kCPU);
      tm::DataParallelIteration iteration(plan, model, *job.groups.dp, *step);
      (void)iteration.run({micro_batch(spec, seed, job.dp_rank(), 0)});
      const auto planned = canzona::plan::rank_collectives(plan, job.dp_rank(), job.tp_rank());
      for (std::size_t b = 0; b < plan.layout.buffers.size(); ++b) {
        std::vector<const canzona::plan::PlannedCollective*> want;
        for (const auto& c : planned) {
          if (c.phase == canzona::plan::Phase::kGradSync && c.buffer == b) want.push_back(&c);
        }
        const auto& trace = iteration.grad_sync().communicator(b).trace();
        ASSERT_EQ(trace.size(), want.size()) << plan.layout.buffers[b].name;
        for (std::size_t i = 0; i < trace.size(); ++i) {
          EXPECT_EQ(trace[i].op_name(), want[i]->op) << i;
          EXPECT_EQ(trace[i].count, want[i]->count) << i;
          EXPECT_EQ(trace[i].bytes_sent, want[i]->bytes_sent) << i;
          EXPECT_EQ(trace[i].bytes_received, want[i]->bytes_received) << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TinyModels, DataParallelTest, tt::all_tiny_kinds(), tt::tiny_kind_name);

canzona::optim::OptimizerSpec visible_learning_rates(canzona::optim::OptimizerKind kind) {
  canzona::optim::OptimizerSpec spec;
  spec.kind = kind;
  spec.muon.lr = 0.02;
  spec.muon.weight_decay = 0;
  spec.shampoo.lr = 0.01;
  spec.shampoo.weight_decay = 0;
  spec.shampoo.refresh_interval = 2;
  spec.soap.lr = 0.01;
  spec.soap.weight_decay = 0;
  spec.soap.precondition_frequency = 2;
  spec.adamw.lr = 0.01;
  spec.adamw.weight_decay = 0;
  return spec;
}

// The whole iteration through the executor (which syncs gradients in its step): the loss of a
// fixed batch falls, and every DP rank ends with the same parameters.
TEST(DataParallelExecutorTest, LossFallsOverTwentyStepsWithEveryStrategyAndOptimizer) {
  at::set_num_threads(1);
  const std::uint64_t seed = canzona::testing::test_seed();
  const ModelSpec spec = tt::tiny_model(tt::TinyKind::kDense);
  const int world_size = canzona::comm::MpiCommunicator::world()->size();
  const auto [dp, tp] = configs(world_size).back();
  for (const std::string_view strategy : canzona::baselines::strategy_names()) {
    for (auto kind : {canzona::optim::OptimizerKind::kMuon, canzona::optim::OptimizerKind::kShampoo,
                      canzona::optim::OptimizerKind::kSoap}) {
      SCOPED_TRACE(fmt::format("CANZONA_TEST_SEED={} dp={} tp={} {} {}", seed, dp, tp, strategy,
                               canzona::optim::to_string(kind)));
      Job job = make_job(dp, tp);
      canzona::plan::StrategyOptions plan_options;
      canzona::baselines::apply_strategy(strategy, plan_options);
      plan_options.optimizer = visible_learning_rates(kind);
      plan_options.zero1.bucket_size = 8192;
      const auto plan = canzona::baselines::make_step_plan(
          spec, canzona::layout::ParallelConfig{dp, tp, 8}, plan_options);
      tm::Qwen3Model model(spec, tm::TensorParallelGroup(*job.groups.tp), options(at::kFloat));
      model.init_parameters({.seed = seed});
      const auto step = tm::make_executor_step(plan, *job.world, *job.groups.dp, *job.groups.tp);
      tm::DataParallelIteration iteration(plan, model, *job.groups.dp, *step);
      const std::vector<tm::MicroBatch> batch = {micro_batch(spec, seed, job.dp_rank(), 0)};
      const double first = iteration.run(batch);
      double last = first;
      for (int i = 1; i < 20; ++i) {
        last = iteration.run(batch);
      }
      EXPECT_LT(last, 0.8 * first) << "loss " << first << " -> " << last;

      // The parameter sync leaves identical buffers on the DP ranks: min == max of a checksum.
      double checksum = 0;
      for (std::size_t b = 0; b < plan.layout.buffers.size(); ++b) {
        checksum += (step->params(b).to(at::kDouble) *
                     at::arange(step->params(b).numel(), at::TensorOptions().dtype(at::kDouble)))
                        .sum()
                        .item<double>();
      }
      double low = 0;
      double high = 0;
      job.groups.dp
          ->all_reduce(&checksum, &low, 1, canzona::comm::DataType::kFloat64,
                       canzona::comm::ReduceOp::kMin)
          .wait();
      job.groups.dp
          ->all_reduce(&checksum, &high, 1, canzona::comm::DataType::kFloat64,
                       canzona::comm::ReduceOp::kMax)
          .wait();
      EXPECT_EQ(low, high);
    }
  }
}

TEST(DataParallelBadInputTest, PlanForAnotherJobOrNoMicroBatchIsRejected) {
  const ModelSpec spec = tt::tiny_model(tt::TinyKind::kDense);
  const int world_size = canzona::comm::MpiCommunicator::world()->size();
  Job job = make_job(world_size, 1);
  Job other = make_job(1, world_size);  // a plan for dp 1 does not fit a DP group of world_size
  const auto wrong = make_plan(spec, other, "canzona", canzona::optim::OptimizerKind::kMuon);
  tm::Qwen3Model model(spec, {}, options(at::kFloat));
  const auto step = tm::make_no_optimizer_step(wrong, at::kFloat, at::kCPU);
  EXPECT_THROW(tm::DataParallelIteration(wrong, model, *job.groups.dp, *step),
               canzona::ConfigError);
  const auto right = make_plan(spec, job, "canzona", canzona::optim::OptimizerKind::kMuon);
  const auto right_step = tm::make_no_optimizer_step(right, at::kFloat, at::kCPU);
  tm::DataParallelIteration iteration(right, model, *job.groups.dp, *right_step);
  EXPECT_THROW((void)iteration.run({}), canzona::ConfigError);
}

}  // namespace
