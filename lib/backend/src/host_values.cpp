// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
#include "canzona/backend/host_values.hpp"

#include <canzona/core/bf16.hpp>

#include <cstring>

namespace canzona::backend {

std::vector<std::uint8_t> host_elements(std::span<const float> values, ElementType type) {
  std::vector<std::uint8_t> bytes(values.size() * element_size(type));
  if (type == ElementType::kFloat32) {
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t bits = float_to_bf16(values[i]);
    std::memcpy(bytes.data() + i * sizeof(bits), &bits, sizeof(bits));
  }
  return bytes;
}

void upload_values(Backend& backend, void* dst, ElementType type, std::span<const float> values) {
  const std::vector<std::uint8_t> bytes = host_elements(values, type);
  backend.upload(dst, bytes.data(), bytes.size());
  backend.synchronize();  // the host bytes must outlive the copy
}

}  // namespace canzona::backend
