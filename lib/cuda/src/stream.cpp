// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Stream / StreamView: creation, borrowing and destruction of CUDA streams.
#include "canzona/cuda/stream.hpp"

#include "canzona/cuda/check.hpp"
#include "canzona/cuda/device_guard.hpp"
#include "canzona/cuda/host_wait.hpp"

#include <utility>

namespace canzona::cuda {

void StreamView::synchronize() const { CANZONA_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

void StreamView::synchronize(std::chrono::duration<double> timeout, std::string_view what) const {
  const cudaStream_t stream = stream_;
  wait_on_host([stream] { return cudaStreamQuery(stream); }, timeout, what);
}

Stream::Stream(int priority) : device_(current_device()), owning_(true) {
  CANZONA_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority));
}

Stream Stream::borrow(cudaStream_t stream, int device) noexcept {
  return Stream(stream, device, false);
}

Stream::~Stream() { reset(); }

Stream::Stream(Stream&& other) noexcept
    : stream_(std::exchange(other.stream_, nullptr)),
      device_(std::exchange(other.device_, -1)),
      owning_(std::exchange(other.owning_, false)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    reset();
    stream_ = std::exchange(other.stream_, nullptr);
    device_ = std::exchange(other.device_, -1);
    owning_ = std::exchange(other.owning_, false);
  }
  return *this;
}

void Stream::synchronize() const { CANZONA_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

void Stream::reset() noexcept {
  if (owning_ && stream_ != nullptr) {
    // cudaStreamDestroy returns at once; work already enqueued still completes.
    CANZONA_CUDA_WARN(cudaStreamDestroy(stream_));
  }
  stream_ = nullptr;
  owning_ = false;
}

}  // namespace canzona::cuda
