// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Times work enqueued on a backend the way the backend runs it: CUDA events on the backend's
// stream for "cuda" (device time, no host sync inside the region), a steady clock around a
// synchronous region for "cpu".
#pragma once

#include <canzona/backend/backend.hpp>

#include <memory>

namespace canzona::bench {

class StepTimer {
 public:
  explicit StepTimer(backend::Backend& backend);
  ~StepTimer();
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

  /// Marks the start of the timed region (enqueued on the backend's stream).
  void start();
  /// Marks its end, waits for it and returns the seconds between the two marks.
  double stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace canzona::bench
