// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Typed device and pinned host allocations, sized in elements. Allocation happens in the
// constructor only, so a timed region that uses preallocated buffers never allocates. Includable
// from C++17 .cu files; the std::span accessors exist only in C++20 translation units.
#pragma once

#include "canzona/cuda/check.hpp"
#include "canzona/cuda/stream.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>
#include <utility>
#if __cplusplus >= 202002L
#include <span>
#endif

namespace canzona::cuda {

/// `size` elements of T in device memory on the current device. Move-only.
///
/// Two allocation modes: the plain constructor uses cudaMalloc (synchronous, freed with
/// cudaFree); the stream constructor uses cudaMallocAsync on `stream` (stream-ordered pool,
/// freed with cudaFreeAsync on the same stream, which must therefore outlive the buffer).
/// Contents are uninitialised. Copy helpers are asynchronous on the given stream: the host
/// memory must stay valid and untouched until that stream has reached the copy.
template <typename T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

 public:
  DeviceBuffer() noexcept = default;
  /// cudaMalloc of `size` elements; throws CudaError (e.g. cudaErrorMemoryAllocation).
  explicit DeviceBuffer(std::size_t size) : size_(size) {
    if (size_ > 0) {
      CANZONA_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), size_ * sizeof(T)));
    }
  }
  /// cudaMallocAsync of `size` elements, ordered on `stream`.
  DeviceBuffer(std::size_t size, StreamView stream)
      : size_(size), stream_(stream.get()), async_(true) {
    if (size_ > 0) {
      CANZONA_CUDA_CHECK(
          cudaMallocAsync(reinterpret_cast<void**>(&data_), size_ * sizeof(T), stream_));
    }
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        stream_(std::exchange(other.stream_, nullptr)),
        async_(std::exchange(other.async_, false)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = std::exchange(other.stream_, nullptr);
      async_ = std::exchange(other.async_, false);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  operator T*() noexcept { return data_; }              // NOLINT(google-explicit-constructor)
  operator const T*() const noexcept { return data_; }  // NOLINT(google-explicit-constructor)

  /// Enqueues a copy of `count` (<= size()) elements from host memory to the front of this
  /// buffer on `stream`. Asynchronous only for pinned host memory.
  void copy_from_host(const T* host, std::size_t count, StreamView stream) {
    check_fits(count);
    if (count > 0) {
      CANZONA_CUDA_CHECK(
          cudaMemcpyAsync(data_, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
  }
  /// Enqueues a copy of `count` (<= size()) elements from the front of this buffer to host
  /// memory on `stream`. Synchronise the stream before reading `host`.
  void copy_to_host(T* host, std::size_t count, StreamView stream) const {
    check_fits(count);
    if (count > 0) {
      CANZONA_CUDA_CHECK(
          cudaMemcpyAsync(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }
  }
#if __cplusplus >= 202002L
  /// Device-memory span; never dereference it on the host.
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
  void copy_from_host(std::span<const T> host, StreamView stream) {
    copy_from_host(host.data(), host.size(), stream);
  }
  void copy_to_host(std::span<T> host, StreamView stream) const {
    copy_to_host(host.data(), host.size(), stream);
  }
#endif
  /// Enqueues a byte-wise zero fill of the whole buffer on `stream`.
  void zero(StreamView stream) {
    if (size_ > 0) {
      CANZONA_CUDA_CHECK(cudaMemsetAsync(data_, 0, size_bytes(), stream));
    }
  }

 private:
  void check_fits(std::size_t count) const {
    CANZONA_CHECK(count <= size_, "copy larger than the device buffer");
  }
  void release() noexcept {
    if (data_ != nullptr) {
      if (async_) {
        CANZONA_CUDA_WARN(cudaFreeAsync(data_, stream_));
      } else {
        CANZONA_CUDA_WARN(cudaFree(data_));
      }
    }
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
  bool async_ = false;
};

/// `size` elements of page-locked host memory (cudaMallocHost), so copies to and from the device
/// are truly asynchronous. Move-only; contents uninitialised.
template <typename T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned buffers hold trivially copyable types");

 public:
  PinnedBuffer() noexcept = default;
  explicit PinnedBuffer(std::size_t size) : size_(size) {
    if (size_ > 0) {
      CANZONA_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), size_ * sizeof(T)));
    }
  }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
#if __cplusplus >= 202002L
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }
#endif
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  void release() noexcept {
    if (data_ != nullptr) {
      CANZONA_CUDA_WARN(cudaFreeHost(data_));
    }
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace canzona::cuda
