// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The executor of one case on this rank: parameters and gradients in place, one step at a time.
#pragma once

#include "case_plan.hpp"
#include "step_job.hpp"
#include "step_slots.hpp"

#include <array>
#include <cstdint>
#include <memory>

namespace canzona::bench::step {

/// One step's times on this rank, seconds.
struct StepRecord {
  double total = 0;
  std::array<double, kSlots> slots{};
};

/// The executor of one case on this rank, with its parameters and gradients in place.
class RankStepper {
 public:
  /// Collective over the job (the executor's start-up agreement). Parameters and gradients are
  /// normal(0, 0.02), a function of (`seed`, global rank, buffer, element) (synthetic_values.hpp);
  /// the gradients are kept on the backend and copied back before every step, since the
  /// gradient sync reduces them in place.
  RankStepper(StepJob& job, const CasePlan& plan, std::uint64_t seed);
  ~RankStepper();
  RankStepper(const RankStepper&) = delete;
  RankStepper& operator=(const RankStepper&) = delete;
  /// Copies the kept gradients into the executor's buffers (on the backend) and waits for it.
  void load_gradients();
  /// One optimizer step (collective).
  void step();
  /// Times of the last step (may wait for the device).
  StepRecord last_step();
  /// Backend operations (kernel launches, library calls, copies on a GPU) the last step
  /// enqueued on this rank; the same count on every backend.
  std::uint64_t last_step_operations() const;
  /// Whether the next step refreshes the preconditioners (Shampoo, SOAP).
  bool next_step_refreshes() const;
  /// Backend bytes this rank's executor allocated (buffers, staging, states, workspaces).
  double allocated_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace canzona::bench::step
