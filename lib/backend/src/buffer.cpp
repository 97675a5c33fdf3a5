// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/backend/backend.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

#include <utility>

namespace canzona::backend {

std::size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::kFloat32:
      return 4;
    case ElementType::kBFloat16:
      return 2;
  }
  throw Error(fmt::format("unknown ElementType {}", static_cast<int>(type)));
}

Buffer::Buffer(Buffer&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    reset();
    owner_ = std::exchange(other.owner_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

Buffer::~Buffer() { reset(); }

void Buffer::reset() noexcept {
  if (owner_ != nullptr && data_ != nullptr) owner_->release(data_);
  owner_ = nullptr;
  data_ = nullptr;
  bytes_ = 0;
}

}  // namespace canzona::backend
