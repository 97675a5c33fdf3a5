// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// CpuBackend memory, data movement and type conversion, and make_cpu_backend().
#include "cpu_backend.hpp"

#include <canzona/backend/cpu_backend.hpp>
#include <canzona/core/error.hpp>
#include "elementwise_ops.hpp"
#include "run_ops.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

namespace canzona::backend::cpu {
namespace {

constexpr std::size_t kAlignment = 256;

}  // namespace

void check_count(std::int64_t n, const char* what) {
  if (n < 0) throw Error(fmt::format("cpu backend: {} = {} must not be negative", what, n));
}

int to_int(std::int64_t value, const char* what) {
  check_count(value, what);
  if (value > std::numeric_limits<int>::max()) {
    throw Error(
        fmt::format("cpu backend: {} = {} exceeds the 32-bit range of BLAS/LAPACK", what, value));
  }
  return static_cast<int>(value);
}

Buffer CpuBackend::do_allocate(std::size_t bytes) {
  // aligned_alloc wants a multiple of the alignment; a zero-byte request still gets a distinct
  // non-null block so every Buffer from here owns something to release.
  const std::size_t rounded =
      bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* data = std::aligned_alloc(kAlignment, rounded);
  if (data == nullptr) {
    throw Error(fmt::format("cpu backend: out of host memory allocating {} bytes", bytes));
  }
  std::memset(data, 0, rounded);
  return Buffer(this, data, bytes);
}

void CpuBackend::release(void* data) noexcept { std::free(data); }

void CpuBackend::do_upload(void* dst, const void* host, std::size_t bytes) {
  if (bytes != 0) std::memcpy(dst, host, bytes);
}

void CpuBackend::do_download(void* host, const void* src, std::size_t bytes) {
  if (bytes != 0) std::memcpy(host, src, bytes);
}

void CpuBackend::do_fill_zero(void* dst, std::size_t bytes) {
  if (bytes != 0) std::memset(dst, 0, bytes);
}

void CpuBackend::do_copy(Items<void> dst, Items<const void> src, std::size_t bytes) {
  // memmove: costs nothing extra and makes an overlapping copy well defined.
  if (bytes == 0) return;
  for (std::int64_t i = 0; i < dst.count(); ++i) std::memmove(dst[i], src[i], bytes);
}

void CpuBackend::do_copy_2d(void* dst, std::size_t dst_pitch, const void* src,
                            std::size_t src_pitch, std::size_t width, std::size_t rows) {
  check_copy_2d(name(), dst_pitch, src_pitch, width);
  if (width == 0 || rows == 0) return;
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  for (std::size_t r = 0; r < rows; ++r) {
    std::memcpy(out + r * dst_pitch, in + r * src_pitch, width);
  }
}

void CpuBackend::do_convert(void* dst, ElementType dst_type, const void* src, ElementType src_type,
                            std::int64_t n) {
  check_count(n, "convert n");
  if (dst_type == src_type) {
    do_copy(dst, src, static_cast<std::size_t>(n) * element_size(dst_type));
    return;
  }
  if (src_type == ElementType::kFloat32 && dst_type == ElementType::kBFloat16) {
    for_each(n, ops::Convert<ops::bf16_bits, float>{static_cast<ops::bf16_bits*>(dst),
                                                    static_cast<const float*>(src)});
    return;
  }
  if (src_type == ElementType::kBFloat16 && dst_type == ElementType::kFloat32) {
    for_each(n, ops::Convert<float, ops::bf16_bits>{static_cast<float*>(dst),
                                                    static_cast<const ops::bf16_bits*>(src)});
    return;
  }
  throw Error(fmt::format("cpu backend: convert from element type {} to {} is not supported",
                          static_cast<int>(src_type), static_cast<int>(dst_type)));
}

}  // namespace canzona::backend::cpu

namespace canzona::backend {

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<cpu::CpuBackend>(); }

}  // namespace canzona::backend
