// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The portable fallback of Backend::copy_2d (one copy() per row) and the argument check every
// implementation shares.
#include "canzona/backend/backend.hpp"

#include <canzona/core/error.hpp>

#include <fmt/format.h>

namespace canzona::backend {

void check_copy_2d(std::string_view backend, std::size_t dst_pitch, std::size_t src_pitch,
                   std::size_t width) {
  if (dst_pitch < width || src_pitch < width) {
    throw Error(fmt::format(
        "{} backend: copy_2d pitches (dst {} B, src {} B) must be at least the row width {} B",
        backend, dst_pitch, src_pitch, width));
  }
}

void Backend::do_copy_2d(void* dst, std::size_t dst_pitch, const void* src, std::size_t src_pitch,
                         std::size_t width, std::size_t rows) {
  check_copy_2d(name(), dst_pitch, src_pitch, width);
  auto* out = static_cast<char*>(dst);
  const auto* in = static_cast<const char*>(src);
  for (std::size_t r = 0; r < rows; ++r) do_copy(out + r * dst_pitch, in + r * src_pitch, width);
}

}  // namespace canzona::backend
