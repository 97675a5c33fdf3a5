// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "step_timer.hpp"

#include <canzona/config.hpp>

#include <chrono>
#include <optional>

#if CANZONA_WITH_CUDA
#include <canzona/backend/cuda_backend.hpp>
#include <canzona/cuda/event.hpp>
#endif

namespace canzona::bench {

struct StepTimer::Impl {
  explicit Impl(backend::Backend& be) : backend(be) {}
  backend::Backend& backend;
  std::chrono::steady_clock::time_point begin{};
#if CANZONA_WITH_CUDA
  // Set for a cuda backend: device time between two events on its stream.
  std::optional<cuda::Event> start_event;
  std::optional<cuda::Event> stop_event;
  cudaStream_t stream = nullptr;
#endif
};

StepTimer::StepTimer(backend::Backend& be) : impl_(std::make_unique<Impl>(be)) {
#if CANZONA_WITH_CUDA
  if (be.name() == "cuda") {
    impl_->stream = backend::cuda_stream(be);
    impl_->start_event.emplace(cuda::Event::timing());
    impl_->stop_event.emplace(cuda::Event::timing());
  }
#endif
}

StepTimer::~StepTimer() = default;

void StepTimer::start() {
#if CANZONA_WITH_CUDA
  if (impl_->start_event) {
    impl_->start_event->record(cuda::StreamView(impl_->stream));
    return;
  }
#endif
  impl_->backend.synchronize();
  impl_->begin = std::chrono::steady_clock::now();
}

double StepTimer::stop() {
#if CANZONA_WITH_CUDA
  if (impl_->stop_event) {
    impl_->stop_event->record(cuda::StreamView(impl_->stream));
    impl_->stop_event->synchronize();
    return static_cast<double>(cuda::elapsed_ms(*impl_->start_event, *impl_->stop_event)) * 1e-3;
  }
#endif
  impl_->backend.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->begin).count();
}

}  // namespace canzona::bench
