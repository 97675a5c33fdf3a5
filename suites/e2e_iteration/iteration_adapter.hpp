// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The suite's one door into libtorch: the Qwen3 model of a case on its TP group, bound to the
// executor of the case's plan, iterated by DataParallelIteration. The only translation unit of
// the suite that includes ATen (each costs ~20 s and ~1.3 GB to compile); the rest speaks in
// the plain records below.
#pragma once

#include "case_plan.hpp"
#include "e2e_case.hpp"
#include "step_job.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace canzona::bench::e2e {

/// One iteration's phases on this rank, host wall-clock seconds (they follow each other; the
/// gradient sync that overlaps backward is inside `backward`).
struct IterationRecord {
  double total = 0;
  double forward = 0;
  double backward = 0;
  double step = 0;  ///< the optimizer step, or the gradient sync alone
};

/// The executor of a case's plan and the model over its buffers, on this rank.
class RankIteration {
 public:
  /// Collective over the job (the executor's start-up agreement, the model's checks). The model
  /// computes in the plan's parameter type (bf16 under the megatron preset), with parameters
  /// from `seed` and, per DP rank and iteration, fresh random tokens. `micro_batches` per DP
  /// rank and iteration; `torch_threads` libtorch intra-op threads (process-wide).
  RankIteration(step::StepJob& job, const step::CasePlan& plan, const E2ECase& c, int micro_batches,
                std::uint64_t seed, int torch_threads);
  ~RankIteration();
  RankIteration(const RankIteration&) = delete;
  RankIteration& operator=(const RankIteration&) = delete;

  /// One iteration (collective): forward and backward over the micro-batches with the bucketed
  /// gradient sync overlapping the last backward, then the optimizer step (`optimizer`) or only
  /// the gradient sync (the iteration with a no-op optimizer).
  IterationRecord run(bool optimizer);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// ConfigError, before anything is allocated, when one rank of the case would need more memory
/// than its share of the device: the model's parameters, gradients and activations
/// (torch_model::estimate_memory) plus the executor's buffers and optimizer state
/// (step::estimated_rank_bytes), against the host's available memory divided by the ranks that
/// share it (`ranks_per_host`) on cpu, or the first GPU's free memory on cuda, or against
/// `limit_bytes` when it is not 0.
void check_rank_memory(const step::CasePlan& plan, const E2ECase& c, const std::string& backend,
                       int ranks_per_host, double limit_bytes);

}  // namespace canzona::bench::e2e
