// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Owning CUDA stream (Stream) and its non-owning view (StreamView). Every asynchronous API of the
// project takes a StreamView, so callers always say where work is enqueued.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <string_view>

namespace canzona::cuda {

class Stream;

/// Non-owning handle to a stream; never destroys it. A default view is the legacy default
/// stream (0), which library code avoids because it serialises with every blocking stream.
class StreamView {
 public:
  constexpr StreamView() noexcept = default;
  constexpr explicit StreamView(cudaStream_t stream) noexcept : stream_(stream) {}
  /// Implicit so a Stream can be passed wherever a view is expected.
  StreamView(const Stream& stream) noexcept;  // NOLINT(google-explicit-constructor)

  cudaStream_t get() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }  // NOLINT

  /// Blocks the host until all work enqueued so far has finished (cudaStreamSynchronize).
  void synchronize() const;
  /// The same, bounded: wait_on_host (host_wait.hpp) on cudaStreamQuery.
  void synchronize(std::chrono::duration<double> timeout, std::string_view what) const;

 private:
  cudaStream_t stream_ = nullptr;
};

/// A cudaStreamNonBlocking stream on the device current at construction, destroyed with the
/// object. Move-only. Work enqueued on it does not implicitly synchronise with stream 0.
class Stream {
 public:
  /// Creates a stream on the current device. `priority` follows CUDA: lower is higher priority,
  /// clamped by the driver to cudaDeviceGetStreamPriorityRange. Throws CudaError.
  explicit Stream(int priority = 0);
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  /// Wraps a stream someone else owns; it is never destroyed by this object.
  static Stream borrow(cudaStream_t stream, int device) noexcept;

  cudaStream_t get() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }  // NOLINT
  StreamView view() const noexcept { return StreamView(stream_); }
  /// Device the stream was created on (or declared for, when borrowed).
  int device() const noexcept { return device_; }
  bool owning() const noexcept { return owning_; }
  /// Blocks the host until all work enqueued so far has finished.
  void synchronize() const;
  /// The same, bounded: wait_on_host (host_wait.hpp) on cudaStreamQuery.
  void synchronize(std::chrono::duration<double> timeout, std::string_view what) const {
    view().synchronize(timeout, what);
  }

 private:
  Stream(cudaStream_t stream, int device, bool owning) noexcept
      : stream_(stream), device_(device), owning_(owning) {}
  void reset() noexcept;

  cudaStream_t stream_ = nullptr;
  int device_ = -1;
  bool owning_ = false;
};

inline StreamView::StreamView(const Stream& stream) noexcept : stream_(stream.get()) {}

}  // namespace canzona::cuda
