// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Items: the arrays one batched backend operation works on, one per item, so a group of
// same-shape matrices (each with its own parameter, gradient and state arrays, allocated one by
// one) is stepped by one backend operation instead of one per matrix. Host-clean.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#if __cplusplus >= 202002L
#include <span>
#endif

namespace canzona::backend {

/// `count()` arrays of one operand of a batched operation, all of the operation's length,
/// anywhere in backend memory: one array (implicit from a pointer), `count` arrays back to back
/// (item i at base + i·stride_bytes), or a list of pointers. A list is host memory that the
/// operation reads during the call only. T may be void (byte addresses) or const-qualified.
/// Includable from the C++17 CUDA sources, which only read Items.
template <typename T>
class Items {
  using Void = std::conditional_t<std::is_const_v<T>, const void, void>;
  using Byte = std::conditional_t<std::is_const_v<T>, const unsigned char, unsigned char>;

 public:
  /// One array.
  Items(T* single) noexcept : base_(single) {}  // NOLINT(google-explicit-constructor)
  /// `count` arrays, item i at base + i·stride_bytes.
  Items(T* base, std::int64_t count, std::size_t stride_bytes) noexcept
      : base_(base), count_(count), stride_(stride_bytes) {}
  /// `count` listed arrays.
  Items(T* const* list, std::size_t count) noexcept
      : list_(list), count_(static_cast<std::int64_t>(count)) {}
#if __cplusplus >= 202002L
  /// Listed arrays.
  Items(std::span<T* const> list) noexcept  // NOLINT(google-explicit-constructor)
      : Items(list.data(), list.size()) {}
#endif

  std::int64_t count() const noexcept { return count_; }

  /// The array of item i (i < count()).
  T* operator[](std::int64_t i) const noexcept {
    if (list_ != nullptr) return list_[i];
    Byte* bytes = static_cast<Byte*>(static_cast<Void*>(base_));
    return static_cast<T*>(static_cast<Void*>(bytes + static_cast<std::size_t>(i) * stride_));
  }

 private:
  T* base_ = nullptr;
  T* const* list_ = nullptr;
  std::int64_t count_ = 1;
  std::size_t stride_ = 0;
};

/// `count` back-to-back arrays of n elements of T from `base`.
template <typename T>
Items<T> back_to_back(T* base, std::int64_t count, std::int64_t n) {
  return Items<T>(base, count, static_cast<std::size_t>(n) * sizeof(T));
}

}  // namespace canzona::backend
