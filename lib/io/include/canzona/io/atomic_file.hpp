// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Writing result and data files so that a reader never sees half a file: the bytes go to a
// temporary file beside the target, are flushed to disk, and the temporary is renamed over it.
#pragma once

#include <filesystem>
#include <string_view>

namespace canzona::io {

/// Writes `bytes` to `path` atomically (temp file in the same directory + fsync + rename). On
/// any failure the target is left as it was and the temporary is removed; throws ConfigError
/// saying why (missing directory, permission, full disk) and what to do.
///
/// Symbolic links are followed: the file a link points to is replaced and the link stays (a
/// dangling link creates its target). A target that exists but is not a regular file (a
/// directory, /dev/full or another device, a FIFO) is refused with ConfigError before anything
/// is written, since the rename would replace it by a regular file.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

/// The regular file a write to `path` would replace, after the rules above (symlinks followed;
/// ConfigError for a target that exists but is not a regular file). Lets a long-running writer
/// refuse a bad target before it starts rather than after.
std::filesystem::path resolve_write_target(const std::filesystem::path& path);

}  // namespace canzona::io
