// SPDX-FileCopyrightText: Canzona Bench contributors
// SPDX-License-Identifier: Apache-2.0
//
// Writing result and data files so that a reader never sees half a file: the bytes go to a
// temporary file beside the target, are flushed to disk, and the temporary is renamed over it.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

namespace canzona::io {

/// Writes `bytes` to `path` atomically (temp file in the same directory + fsync + rename). On
/// any failure the target is left as it was and the temporary is removed; throws ConfigError
/// saying why (missing directory, permission, full disk) and what to do. A file that is
/// replaced keeps its permission bits (a 0600 result stays 0600); a new file is 0644.
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

/// Checks, before a command does any work, that `path` can take its result: the rules of
/// resolve_write_target, a folder to land in that exists and is writable, and none of `inputs`
/// (the files the command reads: the write would replace one of them). ConfigError naming
/// `flag` and what to do; a replaced file keeps its permissions.
void check_output_file(const std::filesystem::path& path, std::string_view flag,
                       const std::vector<std::filesystem::path>& inputs = {});

/// `path` as an absolute folder path without a trailing separator ("out/" and "out" alike).
std::filesystem::path output_folder_path(const std::filesystem::path& path);

/// Checks, before a command does any work, that `path` can become the folder of its results:
/// it does not exist or is an empty folder, and the folder above it exists and is writable.
/// ConfigError naming `flag` and what to do.
void check_output_folder(const std::filesystem::path& path, std::string_view flag);

}  // namespace canzona::io
