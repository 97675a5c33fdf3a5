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
/// saying why (missing directory, permission) and what to do.
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace canzona::io
