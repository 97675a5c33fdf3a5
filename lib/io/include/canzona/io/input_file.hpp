// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// The one way user-named input files are opened (model specs, topologies, nccl-tests output,
// .npy arrays, benchmark JSON, compute caches): a directory, a device or a FIFO is refused with a
// message naming what was expected, before anything tries to read it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace canzona::io {

/// Largest input file read by default (1 GiB): far above any spec, topology or benchmark file,
/// and a clear error instead of an allocation failure when a wrong path points at a disk image.
inline constexpr std::uint64_t kMaxInputBytes = std::uint64_t{1} << 30;

/// Reads the whole file at `path`. `what` names the kind of file in messages ("model spec",
/// ".npy file"). Throws ConfigError, naming the path and how to fix it, when the path does not
/// exist, is not a regular file (symlinks are followed), cannot be opened or read, or is larger
/// than `max_bytes`.
std::string read_input_file(const std::filesystem::path& path, std::string_view what,
                            std::uint64_t max_bytes = kMaxInputBytes);

/// The ConfigError check of read_input_file without reading: `path` exists and is a regular file.
void require_regular_file(const std::filesystem::path& path, std::string_view what);

}  // namespace canzona::io
