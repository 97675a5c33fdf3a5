// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The suites' region timer on the executor's timers (one timer concept in the project): the
// CUDA-event timer for a device backend, the host clock for a synchronous one.
#include "step_timer.hpp"

#include <canzona/exec/step_timer.hpp>

namespace canzona::bench {

struct StepTimer::Impl {
  std::unique_ptr<exec::StepTimer> timer;
};

StepTimer::StepTimer(backend::Backend& be)
    : impl_(std::make_unique<Impl>(
          Impl{be.device() >= 0 ? exec::make_event_timer(be) : exec::make_host_timer()})) {}

StepTimer::~StepTimer() = default;

void StepTimer::start() { impl_->timer->begin_step(); }

double StepTimer::stop() {
  impl_->timer->end_step();
  return impl_->timer->last_step().total;
}

}  // namespace canzona::bench
